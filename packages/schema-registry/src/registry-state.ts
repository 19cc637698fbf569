import type { CompatibilityLevel, Mode, SchemaType } from "./compatibility-level";
import { canonicalText } from "./formats/canonical";
import {
  configValueSchema,
  decodeRegistryRecord,
  idCounterValueSchema,
  modeValueSchema,
  type RegistryKey,
  type SchemaReference,
  type SchemaValue,
  schemaValueSchema,
} from "./registry-records";

/** A schema as its id names it: the text, its type and what it references. */
export interface StoredSchema {
  schemaType: SchemaType;
  schema: string;
  references: readonly SchemaReference[];
}

interface IdEntry extends StoredSchema {
  /** `subject\0version` of every version (live or soft-deleted) holding this id. */
  holders: Set<string>;
}

const holderKey = (subject: string, version: number) => `${subject}\u0000${version}`;

/** The same schema for id reuse: one type, one canonical text, the same references. */
export function schemaFingerprint(schema: StoredSchema): string {
  return `${schema.schemaType}\u0000${canonicalText(schema.schemaType, schema.schema)}\u0000${JSON.stringify(schema.references)}`;
}

/**
 * The registry's whole state, the fold of its topic: the latest value per key. `apply` is the
 * only way in, for records read back and records just written alike, so a process that replays
 * the topic holds exactly what the writer held.
 */
export class RegistryState {
  /** One past the last offset applied: where the next catch-up reads from. */
  endOffset = 0;
  readonly subjects = new Map<string, Map<number, SchemaValue>>();
  readonly configs = new Map<string | null, CompatibilityLevel>();
  readonly modes = new Map<string | null, Mode>();
  private readonly ids = new Map<number, IdEntry>();
  private counter = 1;
  private maxId = 0;
  private fingerprints: Map<string, number> | null = null;

  applyRecord(key: Uint8Array | null, value: Uint8Array | null): void {
    const record = decodeRegistryRecord(key, value);
    if (record) this.apply(record.key, record.value);
  }

  apply(key: RegistryKey, value: unknown): void {
    switch (key.keytype) {
      case "SCHEMA":
        this.applySchema(
          key.subject,
          key.version,
          value === null ? null : schemaValueSchema.safeParse(value).data,
        );
        return;
      case "CONFIG": {
        const parsed = value === null ? null : configValueSchema.safeParse(value).data;
        if (parsed) this.configs.set(key.subject, parsed.compatibilityLevel);
        else this.configs.delete(key.subject);
        return;
      }
      case "MODE": {
        const parsed = value === null ? null : modeValueSchema.safeParse(value).data;
        if (parsed) this.modes.set(key.subject, parsed.mode);
        else this.modes.delete(key.subject);
        return;
      }
      case "ID_COUNTER": {
        const parsed = value === null ? null : idCounterValueSchema.safeParse(value).data;
        if (parsed) this.counter = Math.max(this.counter, parsed.next);
        return;
      }
    }
  }

  private applySchema(subject: string, version: number, value: SchemaValue | null | undefined): void {
    const versions = this.subjects.get(subject) ?? new Map<number, SchemaValue>();
    const previous = versions.get(version);
    if (previous) this.release(previous);
    if (!value) {
      versions.delete(version);
      if (versions.size === 0) this.subjects.delete(subject);
      return;
    }
    versions.set(version, value);
    this.subjects.set(subject, versions);
    const entry = this.ids.get(value.id) ?? {
      schemaType: value.schemaType,
      schema: value.schema,
      references: value.references,
      holders: new Set<string>(),
    };
    entry.holders.add(holderKey(subject, version));
    if (!this.ids.has(value.id)) {
      this.ids.set(value.id, entry);
      this.fingerprints?.set(schemaFingerprint(entry), value.id);
    }
    this.maxId = Math.max(this.maxId, value.id);
  }

  private release(value: SchemaValue): void {
    const entry = this.ids.get(value.id);
    if (!entry) return;
    entry.holders.delete(holderKey(value.subject, value.version));
    if (entry.holders.size === 0) {
      this.ids.delete(value.id);
      this.fingerprints = null;
    }
  }

  /** The id a new schema gets: never one used before, even if every version holding it is gone. */
  nextId(): number {
    return Math.max(this.counter, this.maxId + 1);
  }

  schemaById(id: number): StoredSchema | undefined {
    return this.ids.get(id);
  }

  /** Versions holding an id, as `{ subject, version }` (soft-deleted ones with `deleted`). */
  holdersOf(id: number, deleted: boolean): { subject: string; version: number }[] {
    const out: { subject: string; version: number }[] = [];
    for (const holder of this.ids.get(id)?.holders ?? []) {
      const [subject, version] = holder.split("\u0000") as [string, string];
      const value = this.subjects.get(subject)?.get(Number(version));
      if (value && (deleted || !value.deleted)) out.push({ subject, version: value.version });
    }
    return out.sort((a, b) =>
      a.subject === b.subject ? a.version - b.version : a.subject < b.subject ? -1 : 1,
    );
  }

  /** The id an identical schema already has, in any subject. */
  idOf(schema: StoredSchema): number | undefined {
    if (!this.fingerprints) {
      this.fingerprints = new Map();
      for (const [id, entry] of this.ids) this.fingerprints.set(schemaFingerprint(entry), id);
    }
    return this.fingerprints.get(schemaFingerprint(schema));
  }

  /** A subject's versions, oldest first; soft-deleted ones only when asked. */
  versionsOf(subject: string, deleted = false): SchemaValue[] {
    const versions = [...(this.subjects.get(subject)?.values() ?? [])].filter((v) => deleted || !v.deleted);
    return versions.sort((a, b) => a.version - b.version);
  }

  /** Every version that references `subject`/`version` and is itself live. */
  referrersOf(subject: string, version: number): SchemaValue[] {
    const out: SchemaValue[] = [];
    for (const versions of this.subjects.values()) {
      for (const value of versions.values()) {
        if (!value.deleted && value.references.some((r) => r.subject === subject && r.version === version))
          out.push(value);
      }
    }
    return out;
  }

  get schemaCount(): number {
    let count = 0;
    for (const versions of this.subjects.values()) count += versions.size;
    return count;
  }
}
