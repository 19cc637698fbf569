import {
  type CompatibilityLevel,
  DEFAULT_COMPATIBILITY,
  DEFAULT_MODE,
  type Mode,
  type SchemaType,
} from "./compatibility-level";
import {
  compatibilityIssues,
  type Incompatibility,
  type ParsedSchema,
  parseSchema,
  type ResolvedReference,
} from "./formats";
import {
  RegistryError,
  schemaNotFound,
  settingNotConfigured,
  subjectNotFound,
  versionNotFound,
} from "./registry-error";
import type { RegistryLog } from "./registry-log";
import {
  configKey,
  encodeRegistryKey,
  encodeRegistryValue,
  ID_COUNTER_KEY,
  modeKey,
  type RegistryWrite,
  type SchemaReference,
  type SchemaValue,
  schemaKey,
} from "./registry-records";
import { RegistryState, type StoredSchema } from "./registry-state";

/** How deep references may nest (a reference's references …) before a schema is refused. */
export const MAX_REFERENCE_DEPTH = 16;

export interface SchemaInput {
  schema: string;
  schemaType: SchemaType;
  references: readonly SchemaReference[];
}

export interface RegisterInput extends SchemaInput {
  /** IMPORT mode only: the id and version the schema had elsewhere. */
  id?: number | undefined;
  version?: number | undefined;
  normalize?: boolean | undefined;
}

export interface CompatibilityResult {
  compatible: boolean;
  issues: Incompatibility[];
}

/**
 * One tenant's schema registry over its log. Reads first catch up with the log's end (so a write
 * by any process is seen by the next read anywhere); writes run exclusively, catch up, decide,
 * append, and apply what they appended, so ids and versions are allocated once.
 */
export class SchemaRegistry {
  private folded = new RegistryState();
  private syncing: Promise<void> | null = null;

  constructor(private readonly log: RegistryLog) {}

  /** The state folded so far (as of the last catch-up). */
  get state(): RegistryState {
    return this.folded;
  }

  /** The state as of the log's end now. Concurrent callers share one catch-up. */
  async current(): Promise<RegistryState> {
    const end = await this.log.endOffset();
    // A log that is shorter than what was folded was replaced (restored elsewhere): fold it anew.
    if (end < this.folded.endOffset) this.folded = new RegistryState();
    while (this.folded.endOffset < end) {
      const before = this.folded.endOffset;
      this.syncing ??= this.catchUp(end).finally(() => {
        this.syncing = null;
      });
      await this.syncing;
      if (this.folded.endOffset === before) {
        throw new RegistryError(
          "STORE_ERROR",
          `The registry's log did not advance past offset ${before} (its end is ${end}).`,
        );
      }
    }
    return this.folded;
  }

  private async catchUp(end: number): Promise<void> {
    const state = this.folded;
    for await (const page of this.log.read(state.endOffset, end)) {
      for (const record of page.records) state.applyRecord(record.key, record.value);
      state.endOffset = Math.max(state.endOffset, page.end);
    }
  }

  private async write<T>(
    decide: (state: RegistryState) => { writes: RegistryWrite[]; result: T },
  ): Promise<T> {
    return this.log.exclusive(async () => {
      const state = await this.current();
      const { writes, result } = decide(state);
      if (writes.length === 0) return result;
      const offsets = await this.log.append(
        writes.map((w) => ({ key: encodeRegistryKey(w.key), value: encodeRegistryValue(w.value) })),
      );
      // Applied in the order written: the state is the fold of the log, whoever appended.
      if (state.endOffset === offsets[0]) {
        for (const w of writes)
          state.apply(w.key, w.value === null ? null : JSON.parse(JSON.stringify(w.value)));
        state.endOffset = offsets.at(-1)! + 1;
      }
      return result;
    });
  }

  // ---- reads ----

  effectiveCompatibility(state: RegistryState, subject: string | null): CompatibilityLevel {
    return (
      (subject !== null ? state.configs.get(subject) : undefined) ??
      state.configs.get(null) ??
      DEFAULT_COMPATIBILITY
    );
  }

  effectiveMode(state: RegistryState, subject: string | null): Mode {
    return (subject !== null ? state.modes.get(subject) : undefined) ?? state.modes.get(null) ?? DEFAULT_MODE;
  }

  /** A subject's version by number, `latest` or -1 (the latest live one). */
  version(state: RegistryState, subject: string, version: number | "latest", deleted = false): SchemaValue {
    const all = state.versionsOf(subject, true);
    if (all.length === 0) throw subjectNotFound(subject);
    if (version === "latest" || version === -1) {
      const live = state.versionsOf(subject, deleted);
      const latest = live.at(-1);
      if (!latest) throw subjectNotFound(subject);
      return latest;
    }
    const found = all.find((v) => v.version === version);
    if (!found || (found.deleted && !deleted)) throw versionNotFound(subject, version);
    return found;
  }

  /** References looked up and resolved, recursively (42201 for one that does not exist). */
  resolveReferences(
    state: RegistryState,
    references: readonly SchemaReference[],
    depth = 0,
  ): ResolvedReference[] {
    if (depth > MAX_REFERENCE_DEPTH) {
      throw new RegistryError(
        "INVALID_SCHEMA",
        `Invalid schema: references nest deeper than ${MAX_REFERENCE_DEPTH}`,
      );
    }
    return references.map((ref) => {
      const target = state.subjects
        .get(ref.subject)
        ?.get(ref.version === -1 ? (state.versionsOf(ref.subject).at(-1)?.version ?? -1) : ref.version);
      if (!target || target.deleted) {
        throw new RegistryError(
          "INVALID_SCHEMA",
          `Invalid schema: reference "${ref.name}" names subject '${ref.subject}' version ${ref.version}, which does not exist`,
        );
      }
      return {
        name: ref.name,
        schemaType: target.schemaType,
        schema: target.schema,
        references: this.resolveReferences(state, target.references, depth + 1),
      };
    });
  }

  parse(state: RegistryState, input: SchemaInput): ParsedSchema {
    if (input.schema.trim() === "") throw new RegistryError("INVALID_SCHEMA", "Invalid schema: empty schema");
    return parseSchema(input.schemaType, input.schema, this.resolveReferences(state, input.references));
  }

  parseStored(state: RegistryState, stored: StoredSchema): ParsedSchema {
    return parseSchema(stored.schemaType, stored.schema, this.resolveReferences(state, stored.references));
  }

  /** The version of `subject` holding this schema (POST /subjects/{subject}). */
  async lookup(
    subject: string,
    input: SchemaInput & { normalize?: boolean; deleted?: boolean },
  ): Promise<SchemaValue> {
    const state = await this.current();
    if (state.versionsOf(subject, true).length === 0) throw subjectNotFound(subject);
    const parsed = this.parse(state, input);
    const refs = JSON.stringify(input.references);
    const match = state
      .versionsOf(subject, input.deleted ?? false)
      .reverse()
      .find((v) => {
        if (v.schemaType !== input.schemaType || JSON.stringify(v.references) !== refs) return false;
        if (v.schema === input.schema) return true;
        const stored = this.parseStored(state, v);
        return input.normalize
          ? stored.normalized === parsed.normalized
          : stored.canonical === parsed.canonical;
      });
    if (!match) throw schemaNotFound("Schema not found");
    return match;
  }

  /** Whether `input` may join `subject` at its level: against one version, or all the level names. */
  async checkCompatibility(
    subject: string,
    version: number | "latest" | null,
    input: SchemaInput,
  ): Promise<CompatibilityResult> {
    const state = await this.current();
    const candidate = this.parse(state, input);
    const level = this.effectiveCompatibility(state, subject);
    let previous: SchemaValue[];
    if (version === null) {
      previous = state.versionsOf(subject);
    } else {
      previous = [this.version(state, subject, version)];
    }
    const issues = compatibilityIssues(
      version === null ? level : nonTransitive(level),
      candidate,
      previous.map((v) => this.parseStored(state, v)),
    );
    return { compatible: issues.length === 0, issues };
  }

  // ---- writes ----

  register(subject: string, input: RegisterInput): Promise<{ id: number; version: number }> {
    return this.write((state) => this.decideRegister(state, subject, input));
  }

  private decideRegister(
    state: RegistryState,
    subject: string,
    input: RegisterInput,
  ): { writes: RegistryWrite[]; result: { id: number; version: number } } {
    const mode = this.effectiveMode(state, subject);
    if (mode === "READONLY") {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `Subject ${subject} is in read-only mode`);
    }
    if (input.id !== undefined && mode !== "IMPORT") {
      throw new RegistryError(
        "OPERATION_NOT_PERMITTED",
        `Subject ${subject} is not in import mode, so a schema id may not be given`,
      );
    }
    const parsed = this.parse(state, input);
    const text = input.normalize ? parsed.normalized : input.schema;
    const refs = JSON.stringify(input.references);
    const live = state.versionsOf(subject);
    const same = live.find(
      (v) =>
        v.schemaType === input.schemaType &&
        JSON.stringify(v.references) === refs &&
        (v.schema === text || this.parseStored(state, v).canonical === parsed.canonical),
    );
    if (same && (input.id === undefined || input.id === same.id)) {
      return { writes: [], result: { id: same.id, version: same.version } };
    }
    if (mode !== "IMPORT") {
      const level = this.effectiveCompatibility(state, subject);
      const issues = compatibilityIssues(
        level,
        parsed,
        live.map((v) => this.parseStored(state, v)),
      );
      if (issues.length > 0) throw incompatible(subject, issues);
    }
    const stored: StoredSchema = { schemaType: input.schemaType, schema: text, references: input.references };
    const writes: RegistryWrite[] = [];
    let id: number;
    if (input.id !== undefined) {
      const existing = state.schemaById(input.id);
      if (existing && existing.schema !== text) {
        throw new RegistryError(
          "OPERATION_NOT_PERMITTED",
          `Overwrite new schema with id ${input.id} is not permitted.`,
        );
      }
      id = input.id;
      if (id >= state.nextId()) writes.push({ key: ID_COUNTER_KEY, value: { next: id + 1 } });
    } else {
      const reused = state.idOf(stored);
      id = reused ?? state.nextId();
      if (reused === undefined) writes.push({ key: ID_COUNTER_KEY, value: { next: id + 1 } });
    }
    const all = state.versionsOf(subject, true);
    const version = input.version ?? (all.at(-1)?.version ?? 0) + 1;
    if (input.version !== undefined && all.some((v) => v.version === input.version)) {
      throw new RegistryError(
        "OPERATION_NOT_PERMITTED",
        `Version ${input.version} of subject ${subject} already exists.`,
      );
    }
    writes.push({
      key: schemaKey(subject, version),
      value: {
        subject,
        version,
        id,
        schemaType: input.schemaType,
        schema: text,
        references: [...input.references],
        deleted: false,
      },
    });
    return { writes, result: { id, version } };
  }

  /** Soft or permanent deletion of one version; its number. */
  deleteVersion(subject: string, version: number | "latest", permanent: boolean): Promise<number> {
    return this.write((state) => {
      this.assertWritable(state, subject);
      const target = this.version(state, subject, version, version !== "latest");
      if (!permanent && target.deleted) {
        throw new RegistryError(
          "VERSION_SOFT_DELETED",
          `Subject '${subject}' Version ${target.version} was soft deleted. Set permanent=true to delete permanently`,
        );
      }
      if (permanent && !target.deleted) {
        throw new RegistryError(
          "VERSION_NOT_SOFT_DELETED",
          `Subject '${subject}' Version ${target.version} was not deleted first before being permanently deleted`,
        );
      }
      this.assertUnreferenced(state, subject, [target.version]);
      const writes: RegistryWrite[] = [
        permanent
          ? { key: schemaKey(subject, target.version), value: null }
          : { key: schemaKey(subject, target.version), value: { ...target, deleted: true } },
      ];
      return { writes, result: target.version };
    });
  }

  /** Soft or permanent deletion of a whole subject; the versions deleted. */
  deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    return this.write((state) => {
      this.assertWritable(state, subject);
      const all = state.versionsOf(subject, true);
      if (all.length === 0) throw subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      if (!permanent && live.length === 0) {
        throw new RegistryError(
          "SUBJECT_SOFT_DELETED",
          `Subject '${subject}' was soft deleted.Set permanent=true to delete permanently`,
        );
      }
      if (permanent && live.length > 0) {
        throw new RegistryError(
          "SUBJECT_NOT_SOFT_DELETED",
          `Subject '${subject}' was not deleted first before being permanently deleted`,
        );
      }
      const targets = permanent ? all : live;
      this.assertUnreferenced(
        state,
        subject,
        targets.map((v) => v.version),
      );
      const writes: RegistryWrite[] = targets.map((v) => ({
        key: schemaKey(subject, v.version),
        value: permanent ? null : { ...v, deleted: true },
      }));
      // As Confluent: a deleted subject loses its own compatibility level and mode.
      if (state.configs.has(subject)) writes.push({ key: configKey(subject), value: null });
      if (state.modes.has(subject)) writes.push({ key: modeKey(subject), value: null });
      return { writes, result: targets.map((v) => v.version) };
    });
  }

  private assertWritable(state: RegistryState, subject: string): void {
    if (this.effectiveMode(state, subject) === "READONLY") {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `Subject ${subject} is in read-only mode`);
    }
  }

  private assertUnreferenced(state: RegistryState, subject: string, versions: number[]): void {
    for (const version of versions) {
      const referrer = state
        .referrersOf(subject, version)
        .find((r) => r.subject !== subject || !versions.includes(r.version));
      if (referrer) {
        throw new RegistryError(
          "REFERENCE_EXISTS",
          `One or more references exist to the schema {subject=${subject},version=${version}}: referenced by ${referrer.subject} version ${referrer.version}.`,
        );
      }
    }
  }

  /** Sets (or, with null, removes) a subject's or the global compatibility level; the previous one. */
  setCompatibility(
    subject: string | null,
    level: CompatibilityLevel | null,
  ): Promise<CompatibilityLevel | undefined> {
    return this.write((state) => {
      const previous = state.configs.get(subject);
      if (level === null && previous === undefined && subject !== null) {
        throw settingNotConfigured("compatibility", subject);
      }
      const writes =
        previous === (level ?? undefined)
          ? []
          : [{ key: configKey(subject), value: level === null ? null : { compatibilityLevel: level } }];
      return { writes, result: previous };
    });
  }

  /** Sets (or removes) a subject's or the global mode; IMPORT only on an empty registry unless forced. */
  setMode(subject: string | null, mode: Mode | null, force = false): Promise<Mode | undefined> {
    return this.write((state) => {
      const previous = state.modes.get(subject);
      if (mode === null && previous === undefined && subject !== null) {
        throw settingNotConfigured("mode", subject);
      }
      if (mode === "IMPORT" && !force) {
        const populated =
          subject === null ? state.subjects.size > 0 : state.versionsOf(subject, true).length > 0;
        if (populated) {
          throw new RegistryError("OPERATION_NOT_PERMITTED", "Cannot import since found existing subjects");
        }
      }
      const writes =
        previous === (mode ?? undefined)
          ? []
          : [{ key: modeKey(subject), value: mode === null ? null : { mode } }];
      return { writes, result: previous };
    });
  }
}

function nonTransitive(level: CompatibilityLevel): CompatibilityLevel {
  return level.replace("_TRANSITIVE", "") as CompatibilityLevel;
}

export function incompatible(subject: string, issues: readonly Incompatibility[]): RegistryError {
  const details = issues.map(
    (i) => `{errorType:'${i.type}', description:'${i.description}', location:'${i.location}'}`,
  );
  return new RegistryError(
    "INCOMPATIBLE_SCHEMA",
    `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${details.join(", ")}]`,
  );
}

/** Confluent's verbose compatibility messages. */
export function incompatibilityMessages(issues: readonly Incompatibility[]): string[] {
  return issues.map(
    (i) => `{errorType:'${i.type}', description:'${i.description}', location:'${i.location}'}`,
  );
}
