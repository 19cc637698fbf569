import { z } from "zod";
import { parseCompatibilityLevel, parseMode, parseSchemaType, SCHEMA_TYPES } from "./compatibility-level";
import { RegistryError, settingNotConfigured } from "./registry-error";
import { type SchemaValue, schemaReferenceSchema } from "./registry-records";
import { incompatibilityMessages, type SchemaInput, type SchemaRegistry } from "./schema-registry";

/** Longest subject name accepted (Confluent sets none; a key of the topic must stay small). */
export const MAX_SUBJECT_LENGTH = 1024;

/** A registry request without its transport: the path below the base, the query, the parsed body. */
export interface RegistryRequest {
  method: string;
  /** Path segments below the registry's base path, already percent-decoded. */
  segments: readonly string[];
  query: URLSearchParams;
  /** The parsed JSON body (undefined when there is none). */
  body: unknown;
}

export interface RegistryResponse {
  status: number;
  /** JSON answer, or for `…/schema` routes the schema text itself. */
  body: unknown;
}

/** What a route needs of the caller: `schemas:read` or `schemas:write`. */
export type RegistryAccess = "read" | "write";

export interface RegistryRoute {
  access: RegistryAccess;
  run: (registry: SchemaRegistry, request: RegistryRequest) => Promise<RegistryResponse>;
}

const ok = (body: unknown): RegistryResponse => ({ status: 200, body });
const flag = (query: URLSearchParams, name: string) => query.get(name)?.toLowerCase() === "true";

const schemaBodySchema = z.looseObject({
  schema: z.string().optional(),
  schemaType: z.string().nullable().optional(),
  references: z.array(schemaReferenceSchema).nullable().optional(),
  id: z.number().int().positive().optional(),
  version: z.number().int().positive().optional(),
});

function schemaBody(body: unknown): SchemaInput & { id?: number | undefined; version?: number | undefined } {
  const parsed = schemaBodySchema.safeParse(body ?? {});
  if (!parsed.success) {
    throw new RegistryError(
      "INVALID_REQUEST",
      `Invalid request body: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`,
    );
  }
  if (parsed.data.schema === undefined || parsed.data.schema === "") {
    throw new RegistryError("INVALID_SCHEMA", "Invalid schema: empty schema");
  }
  return {
    schema: parsed.data.schema,
    schemaType: parseSchemaType(parsed.data.schemaType),
    references: parsed.data.references ?? [],
    id: parsed.data.id,
    version: parsed.data.version,
  };
}

function subjectOf(raw: string): string {
  if (raw.length === 0 || raw.length > MAX_SUBJECT_LENGTH) {
    throw new RegistryError(
      "INVALID_REQUEST",
      `A subject name must be 1 to ${MAX_SUBJECT_LENGTH} characters long.`,
    );
  }
  return raw;
}

/** `latest`, -1 or 1…2^31-1 (Confluent's VersionId). */
export function versionOf(raw: string): number | "latest" {
  if (raw === "latest" || raw === "-1") return "latest";
  const version = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(version) || version < 1 || version > 2 ** 31 - 1) {
    throw new RegistryError(
      "INVALID_VERSION",
      `The specified version '${raw}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
    );
  }
  return version;
}

function idOf(raw: string): number {
  const id = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${raw} not found`);
  return id;
}

/** A version as Confluent answers it: schemaType only when not AVRO, references only when some. */
export function versionBody(value: SchemaValue): Record<string, unknown> {
  return {
    subject: value.subject,
    version: value.version,
    id: value.id,
    ...(value.schemaType === "AVRO" ? {} : { schemaType: value.schemaType }),
    ...(value.references.length > 0 ? { references: value.references } : {}),
    schema: value.schema,
  };
}

function compatibilityBody(
  value: { compatible: boolean; issues: Parameters<typeof incompatibilityMessages>[0] },
  verbose: boolean,
) {
  return {
    is_compatible: value.compatible,
    ...(verbose || !value.compatible
      ? { messages: verbose ? incompatibilityMessages(value.issues) : [] }
      : {}),
  };
}

type Handler = (
  registry: SchemaRegistry,
  request: RegistryRequest,
  params: string[],
) => Promise<RegistryResponse>;

interface RouteSpec {
  method: string;
  /** Literal segments, or `:name` for a parameter. */
  pattern: string[];
  access: RegistryAccess;
  handler: Handler;
}

const route = (method: string, path: string, access: RegistryAccess, handler: Handler): RouteSpec => ({
  method,
  pattern: path.split("/").filter(Boolean),
  access,
  handler,
});

/**
 * GET config/:subject and mode/:subject: the subject's own setting; without one, the global setting
 * when the query asks `defaultToGlobal=true`, else Confluent's "not configured" error.
 */
async function subjectSetting(
  registry: SchemaRegistry,
  request: RegistryRequest,
  subject: string,
  setting: "compatibility" | "mode",
): Promise<string> {
  const state = await registry.current();
  const name = subjectOf(subject);
  const compatibility = setting === "compatibility";
  const own = compatibility ? state.configs.get(name) : state.modes.get(name);
  if (own !== undefined) return own;
  if (!flag(request.query, "defaultToGlobal")) throw settingNotConfigured(setting, name);
  return compatibility ? registry.effectiveCompatibility(state, null) : registry.effectiveMode(state, null);
}

async function subjectsList(registry: SchemaRegistry, request: RegistryRequest): Promise<RegistryResponse> {
  const state = await registry.current();
  const deleted = flag(request.query, "deleted");
  const deletedOnly = flag(request.query, "deletedOnly");
  const prefix = request.query.get("subjectPrefix") ?? "";
  const subjects = [...state.subjects.keys()]
    .filter((s) => s.startsWith(prefix))
    .filter((s) => {
      const live = state.versionsOf(s).length > 0;
      return deletedOnly ? !live : deleted || live;
    })
    .sort();
  return ok(subjects);
}

async function subjectVersions(
  registry: SchemaRegistry,
  request: RegistryRequest,
  [subject]: string[],
): Promise<RegistryResponse> {
  const state = await registry.current();
  const name = subjectOf(subject!);
  const versions = state.versionsOf(name, flag(request.query, "deleted"));
  if (versions.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${name}' not found.`);
  return ok(versions.map((v) => v.version));
}

async function getVersion(registry: SchemaRegistry, request: RegistryRequest, [subject, version]: string[]) {
  const state = await registry.current();
  return registry.version(state, subjectOf(subject!), versionOf(version!), flag(request.query, "deleted"));
}

async function schemaById(registry: SchemaRegistry, request: RegistryRequest, id: number) {
  const state = await registry.current();
  const stored = state.schemaById(id);
  const subject = request.query.get("subject");
  if (!stored || (subject && !state.holdersOf(id, true).some((h) => h.subject === subject))) {
    throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${id} not found`);
  }
  return { state, stored };
}

const ROUTES: RouteSpec[] = [
  route("GET", "", "read", async () => ok({})),
  route("GET", "contexts", "read", async () => ok(["."])),
  route("GET", "schemas/types", "read", async () => ok([...SCHEMA_TYPES].reverse())),
  route("GET", "schemas", "read", async (registry, request) => {
    const state = await registry.current();
    const prefix = request.query.get("subjectPrefix") ?? "";
    const deleted = flag(request.query, "deleted");
    const latestOnly = flag(request.query, "latestOnly");
    const out: Record<string, unknown>[] = [];
    for (const subject of [...state.subjects.keys()].filter((s) => s.startsWith(prefix)).sort()) {
      const versions = state.versionsOf(subject, deleted);
      for (const v of latestOnly ? versions.slice(-1) : versions) out.push(versionBody(v));
    }
    return ok(out);
  }),
  route("GET", "schemas/ids/:id", "read", async (registry, request, [id]) => {
    const { stored } = await schemaById(registry, request, idOf(id!));
    return ok({
      ...(stored.schemaType === "AVRO" ? {} : { schemaType: stored.schemaType }),
      ...(stored.references.length > 0 ? { references: stored.references } : {}),
      schema: stored.schema,
    });
  }),
  route("GET", "schemas/ids/:id/schema", "read", async (registry, request, [id]) => {
    const { stored } = await schemaById(registry, request, idOf(id!));
    return { status: 200, body: stored.schema };
  }),
  route("GET", "schemas/ids/:id/subjects", "read", async (registry, request, [id]) => {
    const { state } = await schemaById(registry, request, idOf(id!));
    return ok([...new Set(state.holdersOf(idOf(id!), flag(request.query, "deleted")).map((h) => h.subject))]);
  }),
  route("GET", "schemas/ids/:id/versions", "read", async (registry, request, [id]) => {
    const { state } = await schemaById(registry, request, idOf(id!));
    return ok(state.holdersOf(idOf(id!), flag(request.query, "deleted")));
  }),
  route("GET", "subjects", "read", subjectsList),
  route("GET", "subjects/:subject/versions", "read", subjectVersions),
  route("POST", "subjects/:subject/versions", "write", async (registry, request, [subject]) => {
    const input = schemaBody(request.body);
    const { id } = await registry.register(subjectOf(subject!), {
      ...input,
      normalize: flag(request.query, "normalize"),
    });
    return ok({ id });
  }),
  route("POST", "subjects/:subject", "read", async (registry, request, [subject]) => {
    const input = schemaBody(request.body);
    const found = await registry.lookup(subjectOf(subject!), {
      ...input,
      normalize: flag(request.query, "normalize"),
      deleted: flag(request.query, "deleted"),
    });
    return ok(versionBody(found));
  }),
  route("DELETE", "subjects/:subject", "write", async (registry, request, [subject]) =>
    ok(await registry.deleteSubject(subjectOf(subject!), flag(request.query, "permanent"))),
  ),
  route("GET", "subjects/:subject/versions/:version", "read", async (registry, request, params) =>
    ok(versionBody(await getVersion(registry, request, params))),
  ),
  route("GET", "subjects/:subject/versions/:version/schema", "read", async (registry, request, params) => ({
    status: 200,
    body: (await getVersion(registry, request, params)).schema,
  })),
  route(
    "GET",
    "subjects/:subject/versions/:version/referencedby",
    "read",
    async (registry, request, params) => {
      const target = await getVersion(registry, request, params);
      const state = await registry.current();
      return ok(
        [...new Set(state.referrersOf(target.subject, target.version).map((r) => r.id))].sort(
          (a, b) => a - b,
        ),
      );
    },
  ),
  route(
    "DELETE",
    "subjects/:subject/versions/:version",
    "write",
    async (registry, request, [subject, version]) =>
      ok(
        await registry.deleteVersion(
          subjectOf(subject!),
          versionOf(version!),
          flag(request.query, "permanent"),
        ),
      ),
  ),
  route(
    "POST",
    "compatibility/subjects/:subject/versions/:version",
    "read",
    async (registry, request, [subject, version]) => {
      const result = await registry.checkCompatibility(
        subjectOf(subject!),
        versionOf(version!),
        schemaBody(request.body),
      );
      return ok(compatibilityBody(result, flag(request.query, "verbose")));
    },
  ),
  route("POST", "compatibility/subjects/:subject/versions", "read", async (registry, request, [subject]) => {
    const result = await registry.checkCompatibility(subjectOf(subject!), null, schemaBody(request.body));
    return ok(compatibilityBody(result, flag(request.query, "verbose")));
  }),
  route("GET", "config", "read", async (registry) => {
    const state = await registry.current();
    return ok({ compatibilityLevel: registry.effectiveCompatibility(state, null) });
  }),
  route("PUT", "config", "write", async (registry, request) => {
    const level = parseCompatibilityLevel(configBody(request.body));
    await registry.setCompatibility(null, level);
    return ok({ compatibility: level });
  }),
  route("DELETE", "config", "write", async (registry) => {
    const state = await registry.current();
    const previous = registry.effectiveCompatibility(state, null);
    await registry.setCompatibility(null, null);
    return ok({ compatibilityLevel: previous });
  }),
  route("GET", "config/:subject", "read", async (registry, request, [subject]) =>
    ok({ compatibilityLevel: await subjectSetting(registry, request, subject!, "compatibility") }),
  ),
  route("PUT", "config/:subject", "write", async (registry, request, [subject]) => {
    const level = parseCompatibilityLevel(configBody(request.body));
    await registry.setCompatibility(subjectOf(subject!), level);
    return ok({ compatibility: level });
  }),
  route("DELETE", "config/:subject", "write", async (registry, _request, [subject]) => {
    const previous = await registry.setCompatibility(subjectOf(subject!), null);
    return ok({ compatibilityLevel: previous });
  }),
  route("GET", "mode", "read", async (registry) => {
    const state = await registry.current();
    return ok({ mode: registry.effectiveMode(state, null) });
  }),
  route("PUT", "mode", "write", async (registry, request) => {
    const mode = parseMode(modeBody(request.body));
    await registry.setMode(null, mode, flag(request.query, "force"));
    return ok({ mode });
  }),
  route("GET", "mode/:subject", "read", async (registry, request, [subject]) =>
    ok({ mode: await subjectSetting(registry, request, subject!, "mode") }),
  ),
  route("PUT", "mode/:subject", "write", async (registry, request, [subject]) => {
    const mode = parseMode(modeBody(request.body));
    await registry.setMode(subjectOf(subject!), mode, flag(request.query, "force"));
    return ok({ mode });
  }),
  route("DELETE", "mode/:subject", "write", async (registry, _request, [subject]) => {
    const previous = await registry.setMode(subjectOf(subject!), null);
    return ok({ mode: previous });
  }),
];

function configBody(body: unknown): unknown {
  return typeof body === "object" && body !== null
    ? (body as { compatibility?: unknown }).compatibility
    : undefined;
}

function modeBody(body: unknown): unknown {
  return typeof body === "object" && body !== null ? (body as { mode?: unknown }).mode : undefined;
}

function matches(pattern: readonly string[], segments: readonly string[]): string[] | null {
  if (pattern.length !== segments.length) return null;
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if (part.startsWith(":")) params.push(segments[i]!);
    else if (part !== segments[i]) return null;
  }
  return params;
}

/**
 * The route for a method and path (Confluent's REST API), or a RegistryError: 404 for a path it
 * does not have, 405 for a method the path does not take. Literal routes win over parameters.
 */
export function matchRegistryRoute(method: string, segments: readonly string[]): RegistryRoute {
  const candidates = ROUTES.map((spec) => ({ spec, params: matches(spec.pattern, segments) })).filter(
    (c): c is { spec: RouteSpec; params: string[] } => c.params !== null,
  );
  if (candidates.length === 0) throw new RegistryError("NOT_FOUND", "HTTP 404 Not Found");
  const hit = candidates
    .filter((c) => c.spec.method === method.toUpperCase())
    .sort((a, b) => a.params.length - b.params.length)[0];
  if (!hit) throw new RegistryError("METHOD_NOT_ALLOWED", "HTTP 405 Method Not Allowed");
  return {
    access: hit.spec.access,
    run: (registry, request) => hit.spec.handler(registry, request, hit.params),
  };
}

/** Every route with its access, for the contract and scope tests. */
export const REGISTRY_ROUTES: readonly { method: string; path: string; access: RegistryAccess }[] =
  ROUTES.map((r) => ({
    method: r.method,
    path: r.pattern.join("/"),
    access: r.access,
  }));
