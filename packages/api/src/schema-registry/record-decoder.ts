import {
  decodePayload,
  type ParsedSchema,
  type RegistryState,
  readConfluentFrame,
  type SchemaRegistry,
} from "@lastword/schema-registry";
import type { Identity } from "../auth/request-identity";
import { hasScope } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { RegistryLogDeps } from "./registry-topic-log";
import { tenantRegistry } from "./tenant-registries";

/** Which schema decoded a key or value: its id and, when some subject holds it, that subject's version. */
export interface DecodedWith {
  id: number;
  schemaType: string;
  subject: string | null;
  version: number | null;
}

export type Decoded =
  | { ok: true; value: unknown; schema: DecodedWith }
  | { ok: false; schemaId: number; error: string };

/**
 * Decodes Confluent-framed bytes (magic 0, schema id) with the tenant's registry, for the console's
 * message browser and the REST reads that ask for it. One decoder per request: a schema is looked
 * up and parsed once, however many records use it. Bytes that are not framed answer null; a frame
 * whose schema is unknown or whose payload does not decode answers why, and the caller shows bytes.
 */
export function recordDecoder(deps: RegistryLogDeps, tenantId: string, topic: string) {
  const registry: SchemaRegistry = tenantRegistry(deps, tenantId);
  const parsed = new Map<number, { schema: ParsedSchema; with: DecodedWith } | string>();
  let current: Promise<RegistryState> | null = null;

  async function schemaFor(id: number, role: "key" | "value") {
    const known = parsed.get(id);
    if (known !== undefined) return known;
    current ??= registry.current();
    const state = await current;
    const stored = state.schemaById(id);
    let entry: { schema: ParsedSchema; with: DecodedWith } | string;
    if (!stored) entry = `schema ${id} is not in this tenant's registry`;
    else {
      try {
        const schema = registry.parseStored(state, stored);
        const holders = state.holdersOf(id, true);
        // TopicNameStrategy first: the topic's own subject names the version shown.
        const holder = holders.find((h) => h.subject === `${topic}-${role}`) ?? holders[0] ?? null;
        entry = {
          schema,
          with: {
            id,
            schemaType: stored.schemaType,
            subject: holder?.subject ?? null,
            version: holder?.version ?? null,
          },
        };
      } catch (error) {
        entry = `schema ${id} does not parse: ${(error as Error).message}`;
      }
    }
    parsed.set(id, entry);
    return entry;
  }

  return async function decode(bytes: Uint8Array | null, role: "key" | "value"): Promise<Decoded | null> {
    const frame = readConfluentFrame(bytes);
    if (!frame) return null;
    const entry = await schemaFor(frame.schemaId, role);
    if (typeof entry === "string") return { ok: false, schemaId: frame.schemaId, error: entry };
    try {
      return { ok: true, value: decodePayload(entry.schema, frame.payload), schema: entry.with };
    } catch (error) {
      return {
        ok: false,
        schemaId: frame.schemaId,
        error: `the payload does not decode with schema ${frame.schemaId}: ${(error as Error).message}`,
      };
    }
  };
}

/** What a record's `schemas` says of a framed key or value: the schema that decoded it, or why none did. */
export type SchemaNote = DecodedWith | { id: number; error: string };
export interface RecordSchemas {
  key?: SchemaNote;
  value?: SchemaNote;
}

/** Decoding reads the registry: a caller needs schemas:read as well as the read's own scope. */
export function assertCanDecode(identity: Identity): void {
  if (!hasScope(identity.scopes, "schemas:read")) {
    throw new AppError(
      "INSUFFICIENT_SCOPE",
      "Decoding with the schema registry needs the schemas:read scope.",
      {
        details: { requiredScope: "schemas:read" },
      },
    );
  }
}

/**
 * The records with each framed key and value replaced by its decoded value as JSON bytes, so the
 * search's filters (text, JSON path) and the envelopes see the decoded JSON; `notes` gets which
 * schema decoded what. Bytes that do not decode stay as they are, with the reason noted.
 */
export async function decodeFetched<R extends { key: Buffer | null; value: Buffer | null }>(
  decode: ReturnType<typeof recordDecoder>,
  records: readonly R[],
  notes: WeakMap<object, RecordSchemas>,
): Promise<R[]> {
  return Promise.all(
    records.map(async (record) => {
      const schemas: RecordSchemas = {};
      const out = { ...record };
      for (const role of ["key", "value"] as const) {
        const decoded = await decode(record[role], role);
        if (!decoded) continue;
        if (decoded.ok) {
          out[role] = Buffer.from(JSON.stringify(decoded.value));
          schemas[role] = decoded.schema;
        } else schemas[role] = { id: decoded.schemaId, error: decoded.error };
      }
      if (schemas.key || schemas.value) notes.set(out, schemas);
      return out;
    }),
  );
}
