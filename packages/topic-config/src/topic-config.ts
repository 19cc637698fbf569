/**
 * A topic config the catalog refuses: `message` names the config, the rule and the value given.
 * `code` is the log store's and the API's code for it (INVALID_CONFIG).
 */
export class TopicConfigError extends Error {
  readonly code = "INVALID_CONFIG" as const;

  constructor(message: string) {
    super(message);
    this.name = "TopicConfigError";
  }
}

/** Kafka's message.timestamp.type (the RecordBatch attribute @lastword/record-batch spells the same). */
export type TimestampType = "CreateTime" | "LogAppendTime";

/**
 * Kafka's Long.MAX_VALUE for millisecond configs. JS numbers cannot hold it exactly, so "no limit"
 * is the largest safe integer (≈ 285,000 years): it survives JSON and stays exact in arithmetic.
 * Any long value above it (including "9223372036854775807") is clamped to it.
 */
export const LONG_MAX_MS = Number.MAX_SAFE_INTEGER;
const INT_MAX = 2147483647;

export interface CleanupPolicy {
  compact: boolean;
  delete: boolean;
}

/** A parsed, validated topic config; field names are Kafka's in camelCase with units last. */
export interface TopicConfig {
  cleanupPolicy: CleanupPolicy;
  retentionMs: number;
  retentionBytes: number;
  /** Kafka's local.retention.ms: -2 = retention.ms, -1 = no limit (see localRetention). */
  localRetentionMs: number;
  /** Kafka's local.retention.bytes: -2 = retention.bytes, -1 = no limit (see localRetention). */
  localRetentionBytes: number;
  segmentMs: number;
  segmentBytes: number;
  segmentJitterMs: number;
  segmentIndexBytes: number;
  minCleanableDirtyRatio: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
  deleteRetentionMs: number;
  maxMessageBytes: number;
  fileDeleteDelayMs: number;
  messageTimestampType: TimestampType;
  /** Kafka's older bound (deprecated in 3.6) on a CreateTime record's distance from the append time, either way. */
  messageTimestampDifferenceMaxMs: number;
  /** How far before the append time a CreateTime record's timestamp may be (see timestampBounds). */
  messageTimestampBeforeMaxMs: number;
  /** How far after the append time a CreateTime record's timestamp may be (see timestampBounds). */
  messageTimestampAfterMaxMs: number;
  compressionType: CompressionType;
  /** Lastword's `lastword.durability`: read by the worker, not by the log (see DurabilityMode). */
  durability: DurabilityMode;
}

/**
 * When a produce is acknowledged on a worker with an object store: `object` once its bytes are in
 * object storage under a committed manifest row; `local` on the local fsync, uploaded by the next
 * commit window (a lost machine loses at most that window's appends). Without an object store
 * both mean the local fsync.
 */
export const DURABILITY_MODES = ["object", "local"] as const;
export type DurabilityMode = (typeof DURABILITY_MODES)[number];

/**
 * Kafka's topic `compression.type`: what codec stored batches use. `producer` keeps the codec each
 * producer's batch came with; `uncompressed` and the four codecs recompress to that one.
 */
export const COMPRESSION_TYPES = ["producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"] as const;
export type CompressionType = (typeof COMPRESSION_TYPES)[number];
const TIMESTAMP_TYPES: readonly TimestampType[] = ["CreateTime", "LogAppendTime"];
/** Kafka's Long.MAX_VALUE as Kafka prints it: the "no limit" of the configs that refuse -1. */
const LONG_MAX_TEXT = "9223372036854775807";

export type TopicConfigName =
  | "cleanup.policy"
  | "retention.ms"
  | "retention.bytes"
  | "local.retention.ms"
  | "local.retention.bytes"
  | "segment.ms"
  | "segment.bytes"
  | "segment.jitter.ms"
  | "segment.index.bytes"
  | "min.cleanable.dirty.ratio"
  | "min.compaction.lag.ms"
  | "max.compaction.lag.ms"
  | "lastword.durability"
  | "delete.retention.ms"
  | "max.message.bytes"
  | "file.delete.delay.ms"
  | "message.timestamp.type"
  | "message.timestamp.difference.max.ms"
  | "message.timestamp.before.max.ms"
  | "message.timestamp.after.max.ms"
  | "compression.type";

export type TopicConfigInput = Partial<Record<TopicConfigName, string | number>>;

type ConfigType = "list" | "long" | "int" | "double" | "string";

/**
 * A value of a config that is not an amount: Kafka's "no limit" (-1 where the config allows it,
 * Long.MAX where it does not) and local.retention.*'s -2, "as retention.*".
 */
export interface SpecialConfigValue {
  /** The value in Kafka's notation. */
  raw: string;
  means: "no-limit" | "as-retention";
  /** How a form offers it, e.g. "never (keep forever)". */
  label: string;
}

export interface TopicConfigDefinition {
  name: TopicConfigName;
  field: keyof TopicConfig;
  type: ConfigType;
  /** The default in Kafka's own notation, as `kafka-configs --describe` prints it. */
  default: string;
  unit: "ms" | "bytes" | "ratio" | null;
  doc: string;
  /** The values a config without a unit takes, in the order a form offers them (empty for amounts). */
  choices: readonly string[];
  /** Values of an amount config that are not amounts (empty when it has none). */
  special: readonly SpecialConfigValue[];
  /** The parsed value, or a sentence saying what is wrong with `raw`. */
  parse: (raw: string | number) => ParseResult;
}

export type ParseResult =
  | { ok: true; value: TopicConfig[keyof TopicConfig] }
  | { ok: false; message: string };

function ok(value: TopicConfig[keyof TopicConfig]): ParseResult {
  return { ok: true, value };
}

function fail(message: string): ParseResult {
  return { ok: false, message };
}

function describe(raw: string | number): string {
  return typeof raw === "string" ? JSON.stringify(raw) : String(raw);
}

function parseInteger(raw: string | number): number | null {
  if (typeof raw === "number") return Number.isInteger(raw) ? clampLong(raw) : null;
  const text = raw.trim();
  if (!/^-?\d+$/.test(text)) return null;
  return clampLong(Number(text));
}

function clampLong(value: number): number {
  return Math.max(-LONG_MAX_MS, Math.min(value, LONG_MAX_MS));
}

function longAtLeast(name: string, min: number, rule: string) {
  return (raw: string | number): ParseResult => {
    const value = parseInteger(raw);
    if (value === null || value < min) return fail(`${name} must be ${rule}, got ${describe(raw)}`);
    return ok(value);
  };
}

function intAtLeast(name: string, min: number) {
  return (raw: string | number): ParseResult => {
    const value = parseInteger(raw);
    if (value === null || value < min || value > INT_MAX) {
      return fail(`${name} must be an integer between ${min} and ${INT_MAX}, got ${describe(raw)}`);
    }
    return ok(value);
  };
}

function parseRatio(raw: string | number): ParseResult {
  const value =
    typeof raw === "number" ? raw : /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    return fail(`min.cleanable.dirty.ratio must be a number between 0 and 1, got ${describe(raw)}`);
  }
  return ok(value);
}

function parseCleanupPolicy(raw: string | number): ParseResult {
  const items = String(raw)
    .split(",")
    .map((item) => item.trim().toLowerCase());
  const known = items.every((item) => item === "compact" || item === "delete");
  if (!known || items.length === 0 || items.length > 2) {
    return fail(`cleanup.policy must be delete, compact or compact,delete, got ${describe(raw)}`);
  }
  return ok({ compact: items.includes("compact"), delete: items.includes("delete") });
}

function parseCompressionType(raw: string | number): ParseResult {
  const value = COMPRESSION_TYPES.find((type) => type === raw);
  if (value !== undefined) return ok(value);
  return fail(`compression.type must be one of ${COMPRESSION_TYPES.join(", ")}, got ${describe(raw)}`);
}

function parseDurability(raw: string | number): ParseResult {
  const value = DURABILITY_MODES.find((mode) => mode === raw);
  if (value !== undefined) return ok(value);
  return fail(`lastword.durability must be object or local, got ${describe(raw)}`);
}

function parseTimestampType(raw: string | number): ParseResult {
  const value = TIMESTAMP_TYPES.find((type) => type === raw);
  if (value !== undefined) return ok(value);
  return fail(`message.timestamp.type must be CreateTime or LogAppendTime, got ${describe(raw)}`);
}

const NO_LIMIT_LONG: readonly SpecialConfigValue[] = [
  { raw: LONG_MAX_TEXT, means: "no-limit", label: "no limit" },
];

/** local.retention.*: -2 is "as retention.*", -1 no limit. */
function asRetention(total: string): readonly SpecialConfigValue[] {
  return [
    { raw: "-2", means: "as-retention", label: `as ${total}` },
    { raw: "-1", means: "no-limit", label: "no limit" },
  ];
}

export const TOPIC_CONFIG_DEFINITIONS: readonly TopicConfigDefinition[] = [
  {
    name: "cleanup.policy",
    field: "cleanupPolicy",
    type: "list",
    default: "delete",
    unit: null,
    doc: "delete drops old segments by time/size; compact keeps the latest value per key; both may be combined",
    choices: ["delete", "compact", "compact,delete"],
    special: [],
    parse: parseCleanupPolicy,
  },
  {
    name: "retention.ms",
    field: "retentionMs",
    type: "long",
    default: "604800000",
    unit: "ms",
    doc: "how long a closed segment is kept after its newest record (-1 = forever); delete policy only",
    choices: [],
    special: [{ raw: "-1", means: "no-limit", label: "never (keep forever)" }],
    parse: longAtLeast("retention.ms", -1, "-1 or ≥ 0"),
  },
  {
    name: "retention.bytes",
    field: "retentionBytes",
    type: "long",
    default: "-1",
    unit: "bytes",
    doc: "size a partition may reach before its oldest segments are deleted (negative = no limit); delete policy only",
    choices: [],
    special: [{ raw: "-1", means: "no-limit", label: "no limit" }],
    parse: longAtLeast("retention.bytes", -LONG_MAX_MS, "an integer"),
  },
  {
    name: "local.retention.ms",
    field: "localRetentionMs",
    type: "long",
    default: "-2",
    unit: "ms",
    doc: "with an object store: how long a segment stays on the worker's disk after it is uploaded (-2 = retention.ms, -1 = no limit); evicted segments are fetched back when read",
    choices: [],
    special: asRetention("retention.ms"),
    parse: longAtLeast("local.retention.ms", -2, "-2, -1 or ≥ 0"),
  },
  {
    name: "local.retention.bytes",
    field: "localRetentionBytes",
    type: "long",
    default: "-2",
    unit: "bytes",
    doc: "with an object store: how many bytes of uploaded segments a partition keeps on the worker's disk (-2 = retention.bytes, -1 = no limit)",
    choices: [],
    special: asRetention("retention.bytes"),
    parse: longAtLeast("local.retention.bytes", -2, "-2, -1 or ≥ 0"),
  },
  {
    name: "segment.ms",
    field: "segmentMs",
    type: "long",
    default: "604800000",
    unit: "ms",
    doc: "age of the first record after which the active segment is rolled",
    choices: [],
    special: [],
    parse: longAtLeast("segment.ms", 1, "≥ 1"),
  },
  {
    name: "segment.bytes",
    field: "segmentBytes",
    type: "int",
    default: "1073741824",
    unit: "bytes",
    doc: "size at which the active segment is rolled; also the largest batch a partition accepts",
    choices: [],
    special: [],
    parse: intAtLeast("segment.bytes", 14),
  },
  {
    name: "segment.jitter.ms",
    field: "segmentJitterMs",
    type: "long",
    default: "0",
    unit: "ms",
    doc: "random amount subtracted from segment.ms per segment so partitions do not roll together",
    choices: [],
    special: [],
    parse: longAtLeast("segment.jitter.ms", 0, "≥ 0"),
  },
  {
    name: "segment.index.bytes",
    field: "segmentIndexBytes",
    type: "int",
    default: "10485760",
    unit: "bytes",
    doc: "maximum size of a segment's offset and time indexes; a full index rolls the segment",
    choices: [],
    special: [],
    parse: intAtLeast("segment.index.bytes", 4),
  },
  {
    name: "min.cleanable.dirty.ratio",
    field: "minCleanableDirtyRatio",
    type: "double",
    default: "0.5",
    unit: "ratio",
    doc: "share of uncompacted bytes above which the cleaner compacts the partition",
    choices: [],
    special: [],
    parse: parseRatio,
  },
  {
    name: "min.compaction.lag.ms",
    field: "minCompactionLagMs",
    type: "long",
    default: "0",
    unit: "ms",
    doc: "minimum age before a record may be compacted away",
    choices: [],
    special: [],
    parse: longAtLeast("min.compaction.lag.ms", 0, "≥ 0"),
  },
  {
    name: "max.compaction.lag.ms",
    field: "maxCompactionLagMs",
    type: "long",
    default: LONG_MAX_TEXT,
    unit: "ms",
    doc: "maximum age of an uncompacted record before compaction is forced (default: no limit)",
    choices: [],
    special: [{ raw: LONG_MAX_TEXT, means: "no-limit", label: "never (no limit)" }],
    parse: longAtLeast("max.compaction.lag.ms", 1, "≥ 1"),
  },
  {
    name: "delete.retention.ms",
    field: "deleteRetentionMs",
    type: "long",
    default: "86400000",
    unit: "ms",
    doc: "how long a tombstone stays readable after the compaction pass that first kept it",
    choices: [],
    special: [],
    parse: longAtLeast("delete.retention.ms", 0, "≥ 0"),
  },
  {
    name: "max.message.bytes",
    field: "maxMessageBytes",
    type: "int",
    default: "1048588",
    unit: "bytes",
    doc: "largest record batch the partition accepts (1 MiB plus Kafka's 12-byte log overhead)",
    choices: [],
    special: [],
    parse: intAtLeast("max.message.bytes", 0),
  },
  {
    name: "file.delete.delay.ms",
    field: "fileDeleteDelayMs",
    type: "long",
    default: "60000",
    unit: "ms",
    doc: "how long a deleted segment's files linger (renamed .deleted) before they are removed",
    choices: [],
    special: [],
    parse: longAtLeast("file.delete.delay.ms", 0, "≥ 0"),
  },
  {
    name: "message.timestamp.type",
    field: "messageTimestampType",
    type: "string",
    default: "CreateTime",
    unit: null,
    doc: "CreateTime keeps producer timestamps; LogAppendTime stamps records with the append time",
    choices: TIMESTAMP_TYPES,
    special: [],
    parse: parseTimestampType,
  },
  {
    name: "message.timestamp.difference.max.ms",
    field: "messageTimestampDifferenceMaxMs",
    type: "long",
    default: LONG_MAX_TEXT,
    unit: "ms",
    doc: "CreateTime only: the largest distance of a record's timestamp from the append time, either way, where the before/after bounds are not set (deprecated in Kafka 3.6 for them)",
    choices: [],
    special: NO_LIMIT_LONG,
    parse: longAtLeast("message.timestamp.difference.max.ms", 0, "≥ 0"),
  },
  {
    name: "message.timestamp.before.max.ms",
    field: "messageTimestampBeforeMaxMs",
    type: "long",
    default: LONG_MAX_TEXT,
    unit: "ms",
    doc: "CreateTime only: how far before the append time a record's timestamp may be; older ones are refused (INVALID_TIMESTAMP)",
    choices: [],
    special: NO_LIMIT_LONG,
    parse: longAtLeast("message.timestamp.before.max.ms", 0, "≥ 0"),
  },
  {
    name: "message.timestamp.after.max.ms",
    field: "messageTimestampAfterMaxMs",
    type: "long",
    default: LONG_MAX_TEXT,
    unit: "ms",
    doc: "CreateTime only: how far after the append time a record's timestamp may be; later ones are refused (INVALID_TIMESTAMP)",
    choices: [],
    special: NO_LIMIT_LONG,
    parse: longAtLeast("message.timestamp.after.max.ms", 0, "≥ 0"),
  },
  {
    name: "compression.type",
    field: "compressionType",
    type: "string",
    default: "producer",
    unit: null,
    doc: "codec of stored batches: producer keeps each producer's; uncompressed, gzip, snappy, lz4 or zstd recompress to it",
    choices: COMPRESSION_TYPES,
    special: [],
    parse: parseCompressionType,
  },
  {
    name: "lastword.durability",
    field: "durability",
    type: "string",
    default: "object",
    unit: null,
    doc: "when a produce is acknowledged: object once it is in object storage, local on the local fsync (uploaded within the commit window)",
    choices: DURABILITY_MODES,
    special: [],
    parse: parseDurability,
  },
];

const DEFINITIONS_BY_NAME = new Map(TOPIC_CONFIG_DEFINITIONS.map((d) => [d.name as string, d]));

function assignParsed(config: Record<string, unknown>, name: string, raw: unknown): void {
  const definition = DEFINITIONS_BY_NAME.get(name);
  if (!definition) throw new TopicConfigError(`unknown topic config ${JSON.stringify(name)}`);
  if (typeof raw !== "string" && typeof raw !== "number") {
    throw new TopicConfigError(`${name} must be a string or a number, got ${typeof raw}`);
  }
  const parsed = definition.parse(raw);
  if (!parsed.ok) throw new TopicConfigError(parsed.message);
  config[definition.field] = parsed.value;
}

/** Kafka defaults for every config, as a parsed TopicConfig. */
export function defaultTopicConfig(): TopicConfig {
  const config: Record<string, unknown> = {};
  for (const definition of TOPIC_CONFIG_DEFINITIONS)
    assignParsed(config, definition.name, definition.default);
  return config as unknown as TopicConfig;
}

/**
 * Parses Kafka-named topic configs (strings or numbers) over Kafka's defaults. Throws
 * TopicConfigError with a sentence naming the config, the rule and the value given.
 */
export function parseTopicConfig(input: Readonly<Record<string, unknown>> = {}): TopicConfig {
  const config = defaultTopicConfig() as unknown as Record<string, unknown>;
  for (const [name, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    assignParsed(config, name, raw);
  }
  const parsed = config as unknown as TopicConfig;
  if (parsed.minCompactionLagMs > parsed.maxCompactionLagMs) {
    throw new TopicConfigError(
      `min.compaction.lag.ms (${parsed.minCompactionLagMs}) must not be greater than max.compaction.lag.ms (${parsed.maxCompactionLagMs})`,
    );
  }
  // Kafka's rule: the local copy may not outlive the log itself.
  for (const [local, total, name] of [
    [parsed.localRetentionMs, parsed.retentionMs, "ms"],
    [parsed.localRetentionBytes, parsed.retentionBytes, "bytes"],
  ] as const) {
    if (total >= 0 && (local === -1 || local > total)) {
      throw new TopicConfigError(
        `local.retention.${name} (${local}) must not exceed retention.${name} (${total}): the local copy cannot outlive the log`,
      );
    }
  }
  return parsed;
}

/**
 * The record timestamps a CreateTime topic accepts around the append time `nowMs`, as Kafka's
 * LogConfig resolves them: `message.timestamp.before.max.ms` / `after.max.ms`, each falling back to
 * `message.timestamp.difference.max.ms` while it is at its default (no limit). Null: no bound.
 */
export function timestampBounds(
  config: TopicConfig,
  nowMs: number,
): { min: number | null; max: number | null } {
  const bound = (side: number) => (side === LONG_MAX_MS ? config.messageTimestampDifferenceMaxMs : side);
  const before = bound(config.messageTimestampBeforeMaxMs);
  const after = bound(config.messageTimestampAfterMaxMs);
  return {
    min: before === LONG_MAX_MS ? null : nowMs - before,
    max: after === LONG_MAX_MS ? null : nowMs + after,
  };
}

/**
 * The local-disk bounds in force for uploaded segments: local.retention.* with -2 resolved to
 * retention.*, and any negative result meaning no limit (null).
 */
export function localRetention(config: TopicConfig): { ms: number | null; bytes: number | null } {
  const resolve = (local: number, total: number) => {
    const value = local === -2 ? total : local;
    return value < 0 ? null : value;
  };
  return {
    ms: resolve(config.localRetentionMs, config.retentionMs),
    bytes: resolve(config.localRetentionBytes, config.retentionBytes),
  };
}

/** The config back in Kafka's names and notation (LONG_MAX_MS printed as Long.MAX_VALUE). */
export function formatTopicConfig(config: TopicConfig): Record<TopicConfigName, string> {
  const out = {} as Record<TopicConfigName, string>;
  for (const definition of TOPIC_CONFIG_DEFINITIONS) {
    const value = config[definition.field];
    if (definition.field === "cleanupPolicy") {
      const policy = value as CleanupPolicy;
      out[definition.name] = [policy.compact && "compact", policy.delete && "delete"]
        .filter(Boolean)
        .join(",");
    } else if (value === LONG_MAX_MS && definition.type === "long") {
      out[definition.name] = LONG_MAX_TEXT;
    } else {
      out[definition.name] = String(value);
    }
  }
  return out;
}

/** Kafka's LogConfig.maxSegmentMs: on compacted topics max.compaction.lag.ms caps segment.ms (KIP-354). */
export function maxSegmentMs(config: TopicConfig): number {
  return config.cleanupPolicy.compact
    ? Math.min(config.segmentMs, config.maxCompactionLagMs)
    : config.segmentMs;
}
