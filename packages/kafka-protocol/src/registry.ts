import { compileFields, inVersions, type Plan, parseVersions, type VersionRange } from "./compile";
import { KafkaProtocolError } from "./errors";
import { ApiKey, apiSchemas } from "./generated/schemas";
import type { ApiSchema, MessageBody, MessageInput } from "./schema-types";

// The key table and the schema table are generated from schemas/*.json (one file per API).
export { ApiKey, apiSchemas };

type Schemas = typeof apiSchemas;
export type RequestBody<K extends ApiKey> = MessageBody<Schemas[K]["request"]>;
export type ResponseBody<K extends ApiKey> = MessageBody<Schemas[K]["response"]>;
export type RequestInput<K extends ApiKey> = MessageInput<Schemas[K]["request"]>;
export type ResponseInput<K extends ApiKey> = MessageInput<Schemas[K]["response"]>;

export type Direction = "request" | "response";

interface ApiEntry {
  readonly schema: ApiSchema;
  readonly versions: VersionRange;
  readonly plans: Record<Direction, (Plan | undefined)[]>;
}

const entries = new Map<number, ApiEntry>();
for (const schema of Object.values(apiSchemas) as ApiSchema[]) {
  entries.set(schema.apiKey, {
    schema,
    versions: parseVersions(schema.validVersions),
    plans: { request: [], response: [] },
  });
}

const apiNames = new Map<number, string>(Object.entries(ApiKey).map(([name, key]) => [key, name]));

/** The API's name for logs, or `unknown(<key>)`. */
export function apiKeyName(apiKey: number): string {
  return apiNames.get(apiKey) ?? `unknown(${apiKey})`;
}

export function isKnownApiKey(apiKey: number): apiKey is ApiKey {
  return entries.has(apiKey);
}

/** Versions the codec can read and write, per key: the input to ApiVersions (the listener may narrow it). */
export const supportedVersions: readonly { apiKey: ApiKey; minVersion: number; maxVersion: number }[] = [
  ...entries.values(),
].map((entry) => ({
  apiKey: entry.schema.apiKey as ApiKey,
  minVersion: entry.versions.min,
  maxVersion: entry.versions.max,
}));

function entryFor(apiKey: number): ApiEntry {
  const entry = entries.get(apiKey);
  if (!entry) throw new KafkaProtocolError("UNKNOWN_API", `no schema for API key ${apiKey}`);
  return entry;
}

export function isVersionSupported(apiKey: number, version: number): boolean {
  const entry = entries.get(apiKey);
  return entry !== undefined && version >= entry.versions.min && version <= entry.versions.max;
}

/** Whether this API uses flexible encodings at this version (also answers for versions above the range). */
export function isFlexible(apiKey: number, version: number): boolean {
  return inVersions(entryFor(apiKey).schema.flexibleVersions, version);
}

/** The compiled layout of one message at one version, built on first use and cached. */
export function planFor(apiKey: number, version: number, direction: Direction): Plan {
  const entry = entryFor(apiKey);
  if (version < entry.versions.min || version > entry.versions.max) {
    throw new KafkaProtocolError(
      "UNSUPPORTED_VERSION",
      `${entry.schema.name} v${version} is outside ${entry.schema.validVersions}`,
    );
  }
  const cached = entry.plans[direction][version];
  if (cached) return cached;
  const plan = compileFields(entry.schema[direction], version, isFlexible(apiKey, version));
  entry.plans[direction][version] = plan;
  return plan;
}
