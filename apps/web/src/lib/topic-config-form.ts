import {
  createTopicInput,
  erasurePreflight,
  LONG_MAX_MS,
  parseTopicConfig,
  presetConfigs,
  TOPIC_CONFIG_DEFINITIONS,
  type TopicConfigName,
  type TopicPreset,
} from "@lastword/api/topic-rules";
import { humanConfigValue } from "./config-units";

/**
 * The create wizard's form state and its rules: every config the API accepts as an input in the
 * unit people think in, the preset's values under the user's edits, and validation by the API's
 * own validators (`@lastword/api/topic-rules`), so the browser says what the server would.
 */

export type FieldKind = "duration" | "bytes" | "ratio" | "choice";

export interface UnitChoice {
  value: string;
  label: string;
}

export interface ConfigField {
  name: TopicConfigName;
  kind: FieldKind;
  /** The API's one-line explanation (the log store's definition, as `topics.get` shows it). */
  doc: string;
  default: string;
  units: readonly UnitChoice[];
  choices: readonly string[];
}

/** What the user typed: an amount and its unit ("" for ratios and choices). */
export interface FieldInput {
  amount: string;
  unit: string;
}

export type FieldSource = "default" | "preset" | "edited";

/** The input's "unit" for a config's "no limit" value (-1 or Long.MAX, per the catalog). */
export const NEVER = "never";
/** local.retention.*'s -2: the same bound as retention.*. */
export const AS_RETENTION = "as-retention";

const DURATION_FACTORS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const BYTE_FACTORS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

interface SpecialValue {
  /** The sentinel "unit" the input shows for it. */
  unit: string;
  raw: string;
  label: string;
}

// Values that are not amounts, as the catalog defines them (the definition's `special`).
const SPECIAL_VALUES = new Map<TopicConfigName, readonly SpecialValue[]>(
  TOPIC_CONFIG_DEFINITIONS.map((definition) => [
    definition.name,
    definition.special.map((special) => ({
      unit: special.means === "as-retention" ? AS_RETENTION : NEVER,
      raw: special.raw,
      label: special.label,
    })),
  ]),
);

/** Whether an input's unit stands for a value that is not an amount (its amount is ignored). */
export function isSpecialUnit(unit: string): boolean {
  return unit === NEVER || unit === AS_RETENTION;
}

function unitsOf(name: TopicConfigName, factors: Record<string, number>): UnitChoice[] {
  const units = Object.keys(factors).map((unit) => ({ value: unit, label: unit }));
  const specials = (SPECIAL_VALUES.get(name) ?? []).map((special) => ({
    value: special.unit,
    label: special.label,
  }));
  return [...units, ...specials];
}

export const CONFIG_FIELDS: readonly ConfigField[] = TOPIC_CONFIG_DEFINITIONS.map((definition) => {
  const kind: FieldKind =
    definition.unit === "ms"
      ? "duration"
      : definition.unit === "bytes"
        ? "bytes"
        : definition.unit === "ratio"
          ? "ratio"
          : "choice";
  const factors = kind === "duration" ? DURATION_FACTORS : kind === "bytes" ? BYTE_FACTORS : {};
  return {
    name: definition.name,
    kind,
    doc: definition.doc,
    default: definition.default,
    units: unitsOf(definition.name, factors),
    choices: definition.choices,
  };
});

const FIELDS_BY_NAME = new Map(CONFIG_FIELDS.map((field) => [field.name, field]));

/** The field of a config the API accepts; undefined for a name it does not know. */
export function configField(name: string): ConfigField | undefined {
  return FIELDS_BY_NAME.get(name as TopicConfigName);
}

function factorsOf(kind: FieldKind): Record<string, number> | null {
  if (kind === "duration") return DURATION_FACTORS;
  if (kind === "bytes") return BYTE_FACTORS;
  return null;
}

/** A Kafka value as an input: the largest unit that holds it exactly; -1/Long.MAX as "never". */
export function toInput(name: TopicConfigName, raw: string): FieldInput {
  const field = FIELDS_BY_NAME.get(name);
  const factors = field && factorsOf(field.kind);
  if (!field || !factors) return { amount: raw, unit: "" };
  const number = Number(raw);
  const specials = SPECIAL_VALUES.get(name) ?? [];
  const exact = specials.find((special) => special.raw === raw);
  if (exact) return { amount: "", unit: exact.unit };
  const never = specials.find((special) => special.unit === NEVER);
  if (never && (number >= LONG_MAX_MS || (never.raw === "-1" && number < 0))) {
    return { amount: "", unit: NEVER };
  }
  const units = Object.entries(factors).sort(([, a], [, b]) => b - a);
  for (const [unit, factor] of units) {
    if (Number.isSafeInteger(number) && number !== 0 && number % factor === 0) {
      return { amount: String(number / factor), unit };
    }
  }
  return { amount: raw, unit: field.kind === "duration" ? "ms" : "B" };
}

/**
 * The Kafka value an input stands for. Amounts that are not numbers go through as typed, so the
 * API's validator names the config and the value in its own sentence.
 */
export function toRaw(name: TopicConfigName, input: FieldInput): string {
  const special = SPECIAL_VALUES.get(name)?.find((s) => s.unit === input.unit);
  if (special) return special.raw;
  const amount = input.amount.trim();
  const field = FIELDS_BY_NAME.get(name);
  const factor = field ? factorsOf(field.kind)?.[input.unit] : undefined;
  if (factor === undefined || amount === "" || !/^[-+]?(\d+\.?\d*|\.\d+)$/.test(amount)) return amount;
  const value = Number(amount) * factor;
  // 0.1 s is 100 ms, not 100.00000000000001: round what floating point smeared, keep real fractions.
  const rounded = Math.round(value);
  return String(Math.abs(value - rounded) < 1e-6 ? rounded : value);
}

/** The values a preset (or the plain defaults) gives each config, before the user's edits. */
export function baseConfigs(
  preset: TopicPreset | null,
  policy: string,
  erasureDeadlineDays: number,
): { configs: Record<string, string>; error: string | null } {
  if (preset === null) return { configs: { "cleanup.policy": policy }, error: null };
  try {
    return { configs: presetConfigs(preset, erasureDeadlineDays), error: null };
  } catch (error) {
    return { configs: {}, error: error instanceof Error ? error.message : String(error) };
  }
}

export function sourceOf(
  name: TopicConfigName,
  preset: TopicPreset | null,
  base: Record<string, string>,
  edits: Partial<Record<TopicConfigName, FieldInput>>,
): FieldSource {
  if (edits[name]) return "edited";
  return preset !== null && base[name] !== undefined ? "preset" : "default";
}

/** The configs the create sends besides the preset: the user's edits, in Kafka notation. */
export function editedConfigs(edits: Partial<Record<TopicConfigName, FieldInput>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, input] of Object.entries(edits) as [TopicConfigName, FieldInput][]) {
    out[name] = toRaw(name, input);
  }
  return out;
}

/** Config names a message mentions, as whole names (retention.ms is not in delete.retention.ms). */
export function configsNamedIn(message: string): TopicConfigName[] {
  return CONFIG_FIELDS.map((field) => field.name).filter((name) =>
    new RegExp(`(^|[^\\w.])${name.replaceAll(".", "\\.")}($|[^\\w.])`).test(message),
  );
}

export type FieldErrors = Partial<Record<TopicConfigName | "name" | "partitions", string>>;

/**
 * Per config, the API's sentence for what is wrong with it: each edited value by its own rule,
 * then the whole config as the API would parse it (rules across configs, e.g. min ≤ max lag),
 * which names every config it concerns.
 */
export function configErrors(
  base: Record<string, string>,
  edits: Partial<Record<TopicConfigName, FieldInput>>,
): FieldErrors {
  const errors: FieldErrors = {};
  const edited = editedConfigs(edits);
  for (const definition of TOPIC_CONFIG_DEFINITIONS) {
    const raw = edited[definition.name];
    if (raw === undefined) continue;
    const parsed = definition.parse(raw);
    if (!parsed.ok) errors[definition.name] = parsed.message;
  }
  if (Object.keys(errors).length > 0) return errors;
  try {
    parseTopicConfig({ ...base, ...edited });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    for (const name of configsNamedIn(message)) errors[name] = message;
  }
  return errors;
}

/** Name and partitions by the create input's own zod schema, worded as the API's problem detail. */
export function topicFieldErrors(name: string, partitions: string): FieldErrors {
  const errors: FieldErrors = {};
  const shape = createTopicInput.shape;
  const nameCheck = shape.name.safeParse(name);
  if (!nameCheck.success) errors.name = `name: ${nameCheck.error.issues[0]?.message}`;
  const count = partitions.trim() === "" ? Number.NaN : Number(partitions);
  const partitionsCheck = shape.partitions.safeParse(count);
  if (!partitionsCheck.success) errors.partitions = `partitions: ${partitionsCheck.error.issues[0]?.message}`;
  return errors;
}

interface ProblemLike {
  code?: string;
  detail?: string;
  errors?: readonly { path: string; message: string }[];
}

/**
 * The server's refusal, next to the fields it concerns: zod issues by their path, a config
 * problem by the config names its sentence mentions. What concerns no field stays in `rest`.
 */
export function serverFieldErrors(
  problem: ProblemLike | undefined,
  message: string,
): { fields: FieldErrors; rest: string | null } {
  const fields: FieldErrors = {};
  for (const issue of problem?.errors ?? []) {
    const [head, ...tail] = issue.path.split(".");
    const target = head === "configs" ? tail.join(".") : head;
    if (target === "name" || target === "partitions") fields[target] = `${issue.path}: ${issue.message}`;
    else if (FIELDS_BY_NAME.has(target as TopicConfigName)) {
      fields[target as TopicConfigName] = `${issue.path}: ${issue.message}`;
    }
  }
  if (Object.keys(fields).length > 0) return { fields, rest: null };
  const detail = problem?.detail ?? message;
  if (problem?.code === "TOPIC_EXISTS") return { fields: { name: detail }, rest: null };
  const named = problem?.code === "INVALID_CONFIG" ? configsNamedIn(detail) : [];
  for (const name of named) fields[name] = detail;
  return { fields, rest: named.length > 0 ? null : detail };
}

/** The resulting configs of a create: each value and whether it was set or is the default. */
export function resultingConfigs(
  set: Record<string, string>,
): { name: TopicConfigName; value: string; source: "set" | "default" }[] {
  return CONFIG_FIELDS.map((field) => {
    const value = set[field.name];
    return value === undefined
      ? { name: field.name, value: field.default, source: "default" }
      : { name: field.name, value, source: "set" };
  });
}

const DAY_MS = 86_400_000;

function roughDuration(ms: number): string {
  const units = [
    [DAY_MS, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
  ] as const;
  for (const [size, unit] of units) {
    if (ms >= size) return `${Math.round((ms / size) * 10) / 10} ${unit}`;
  }
  return `${Math.round(ms / 100) / 10} s`;
}

export interface ErasureCheck {
  meetsDeadline: boolean;
  message: string;
  /** The config change that meets the deadline (the API's, rounded to whole units); null if none. */
  fix: Record<string, string> | null;
}

/**
 * The erasure deadline check of a compacted topic's configs (the API's preflight, as `/compliance`
 * runs it on existing topics), with the change that fixes a miss; null for topics that do not compact.
 */
export function erasureCheckOf(set: Record<string, string>, deadlineDays: number): ErasureCheck | null {
  const config = parseTopicConfig(set);
  if (!config.cleanupPolicy.compact) return null;
  // The default deployment keeps partitions in object storage: its waits count (an upper bound).
  const check = erasurePreflight({ config, deadlineMs: deadlineDays * DAY_MS, bucketKeepsVersionsMs: 0 });
  const deadline = `the organization's ${deadlineDays}-day erasure deadline`;
  if (check.meetsDeadline) {
    return {
      meetsDeadline: true,
      message: `Erasure deadline: an erased key's old values are purged and proven gone within ${roughDuration(check.worstCasePurgeMs)} at worst, inside ${deadline}.`,
      fix: null,
    };
  }
  const worst =
    check.worstCasePurgeMs >= LONG_MAX_MS
      ? "may never be purged"
      : `may survive up to ${roughDuration(check.worstCasePurgeMs)}`;
  const fix = check.fix
    ? `; set ${Object.entries(check.fix)
        .map(([name, value]) => `${name}=${value}${humanSuffix(name, value)}`)
        .join(", ")} to meet it`
    : "";
  return {
    meetsDeadline: false,
    message: `Erasure deadline: an erased key's old values ${worst} (min.compaction.lag.ms plus the proof's waits), past ${deadline}${fix}.`,
    fix: check.fix,
  };
}

function humanSuffix(name: string, value: string): string {
  const human = humanConfigValue(name, value);
  return human === null ? "" : ` (${human})`;
}
