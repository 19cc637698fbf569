import type { SchemaType } from "../compatibility-level";

/** A schema another one imports, already looked up (`name` as the importing schema spells it). */
export interface ResolvedReference {
  name: string;
  schemaType: SchemaType;
  schema: string;
  /** The referenced schema's own references, resolved the same way. */
  references: readonly ResolvedReference[];
}

/** A schema parsed by its format's library: the handle its compatibility checks and codecs use. */
export interface ParsedSchema<Handle = unknown> {
  schemaType: SchemaType;
  /** Two schemas with the same canonical text are the same schema (one id, found by lookup). */
  canonical: string;
  /** What `normalize=true` stores instead of the text as sent. */
  normalized: string;
  handle: Handle;
}

/** One reason a schema cannot read data written with another, as Confluent reports it. */
export interface Incompatibility {
  /** Confluent's difference type (FIELD_KIND_CHANGED, READER_FIELD_MISSING_DEFAULT_VALUE, …). */
  type: string;
  /** Where in the schema (JSON pointer for JSON, message path for Protobuf, field path for Avro). */
  location: string;
  description: string;
}

export interface SchemaFormat<Handle = unknown> {
  schemaType: SchemaType;
  /**
   * Throws RegistryError INVALID_SCHEMA (42201) with the library's reason. `references` is every
   * schema this one reaches, in dependency order, each once (`flattenReferences`).
   */
  parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema<Handle>;
  /**
   * What stops `reader` from reading data written with `writer` (empty: compatible). BACKWARD asks
   * it with the new schema as reader, FORWARD with the old one.
   */
  readIssues(reader: ParsedSchema<Handle>, writer: ParsedSchema<Handle>): Incompatibility[];
}

/** JSON with object keys sorted at every depth: one spelling per document. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
}

/** References in dependency order, each once (a reference's own references first). */
export function flattenReferences(references: readonly ResolvedReference[]): ResolvedReference[] {
  const seen = new Set<string>();
  const out: ResolvedReference[] = [];
  const visit = (ref: ResolvedReference) => {
    if (seen.has(ref.name)) return;
    seen.add(ref.name);
    for (const inner of ref.references) visit(inner);
    out.push(ref);
  };
  for (const ref of references) visit(ref);
  return out;
}
