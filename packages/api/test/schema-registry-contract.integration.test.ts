import { REGISTRY_ROUTES } from "@lastword/schema-registry";
import { ADDRESS_REFERENCES, ADDRESS_SCHEMA, recordUsingAddress } from "@lastword/schema-registry/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SCHEMA_REGISTRY_TOPIC } from "../src/index";
import { anotherWebProcess, PUBLIC_URL, provisionTenantKey, rest } from "./api-harness";
import { issueKey, useTenantWorld, worldKafka } from "./tenant-world";

const h = useTenantWorld("sr_contract");
const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  text: string;
}

type Auth = { basic: [string, string] } | { bearer: string } | null;

async function call(
  server: ApiServer,
  auth: Auth,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (auth && "basic" in auth)
    headers.authorization = `Basic ${Buffer.from(auth.basic.join(":")).toString("base64")}`;
  if (auth && "bearer" in auth) headers.authorization = `Bearer ${auth.bearer}`;
  if (body !== undefined) headers["content-type"] = CONTENT_TYPE;
  const response = await server.handleSchemaRegistry(
    new Request(`${PUBLIC_URL}/schema-registry${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body: parsed,
    text,
  };
}

const owner = (): Auth => ({ basic: [h.keyId, h.key] });
const sr = (method: string, path: string, body?: unknown) => call(h.server, owner(), method, path, body);
const avro = (fields: unknown[], name = "Contract") => JSON.stringify({ type: "record", name, fields });
const V1 = avro([{ name: "a", type: "string" }]);
const V2 = avro([
  { name: "a", type: "string" },
  { name: "b", type: "int", default: 1 },
]);

function expectError(answer: Answer, status: number, errorCode: number) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toEqual({ error_code: errorCode, message: expect.any(String) });
}

let id1: number;

beforeAll(async () => {
  const first = await sr("POST", "/subjects/contract-value/versions", { schema: V1 });
  expect(first.status, first.text).toBe(200);
  id1 = (first.body as { id: number }).id;
});

describe("the registry's HTTP API, against Confluent's documented shapes", () => {
  it("answers reads in Confluent's shapes and content type", async () => {
    expect((await sr("GET", "/")).body).toEqual({});
    const types = await sr("GET", "/schemas/types");
    expect(types.body).toEqual(["JSON", "PROTOBUF", "AVRO"]);
    expect(types.contentType).toBe(CONTENT_TYPE);
    expect((await sr("GET", "/subjects")).body).toEqual(["contract-value"]);
    expect((await sr("GET", "/subjects/contract-value/versions")).body).toEqual([1]);
    expect((await sr("GET", "/subjects/contract-value/versions/1")).body).toEqual({
      subject: "contract-value",
      version: 1,
      id: id1,
      schema: V1,
    });
    expect((await sr("GET", "/subjects/contract-value/versions/latest/schema")).text).toBe(V1);
    expect((await sr("GET", `/schemas/ids/${id1}`)).body).toEqual({ schema: V1 });
    expect((await sr("GET", `/schemas/ids/${id1}/schema`)).text).toBe(V1);
    expect((await sr("GET", `/schemas/ids/${id1}/versions`)).body).toEqual([
      { subject: "contract-value", version: 1 },
    ]);
    expect((await sr("GET", `/schemas/ids/${id1}/subjects`)).body).toEqual(["contract-value"]);
    expect((await sr("GET", "/schemas?subjectPrefix=contract")).body).toEqual([
      { subject: "contract-value", version: 1, id: id1, schema: V1 },
    ]);
    expect((await sr("GET", "/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
    expect((await sr("GET", "/mode")).body).toEqual({ mode: "READWRITE" });
  });

  it("answers each documented error with its status and error_code", async () => {
    expectError(await sr("GET", "/subjects/nope/versions"), 404, 40401);
    expectError(await sr("GET", "/subjects/contract-value/versions/7"), 404, 40402);
    expectError(await sr("GET", "/schemas/ids/99999"), 404, 40403);
    expectError(
      await sr("POST", "/subjects/contract-value", { schema: avro([{ name: "zz", type: "int" }]) }),
      404,
      40403,
    );
    expectError(await sr("GET", "/config/contract-value"), 404, 40408);
    expectError(await sr("GET", "/mode/contract-value"), 404, 40409);
    expectError(await sr("DELETE", "/subjects/contract-value/versions/1?permanent=true"), 404, 40407);
    expectError(await sr("GET", "/subjects/contract-value/versions/abc"), 422, 42202);
    expectError(await sr("POST", "/subjects/contract-value/versions", { schema: "{not json" }), 422, 42201);
    expectError(
      await sr("POST", "/subjects/contract-value/versions", { schema: V1, schemaType: "XML" }),
      422,
      42201,
    );
    expectError(await sr("PUT", "/config", { compatibility: "SIDEWAYS" }), 422, 42203);
    expectError(await sr("PUT", "/mode", { mode: "SOMETIMES" }), 422, 42204);
    expectError(await sr("PUT", "/mode", { mode: "IMPORT" }), 422, 42205);
    expectError(await sr("POST", "/subjects/contract-value/versions", "{oops"), 400, 400);
    expectError(await sr("GET", "/nothing-here"), 404, 404);
    expectError(await sr("PATCH", "/subjects"), 405, 405);
    const breaking = await sr("POST", "/subjects/contract-value/versions", {
      schema: avro([{ name: "a", type: "long" }]),
    });
    expectError(breaking, 409, 409);
    expect((breaking.body as { message: string }).message).toMatch(/TYPE_MISMATCH/);
    expect((await sr("GET", "/subjects/contract-value/versions")).body).toEqual([1]);
  });

  it("looks up, checks compatibility (verbose), configures per subject, and falls back to global", async () => {
    expect((await sr("POST", "/subjects/contract-value", { schema: ` ${V1} ` })).body).toMatchObject({
      id: id1,
      version: 1,
    });
    expect((await sr("GET", "/config/contract-value?defaultToGlobal=true")).body).toEqual({
      compatibilityLevel: "BACKWARD",
    });
    expect((await sr("PUT", "/config/contract-value", { compatibility: "FORWARD" })).body).toEqual({
      compatibility: "FORWARD",
    });
    expect((await sr("GET", "/config/contract-value")).body).toEqual({ compatibilityLevel: "FORWARD" });
    const ok = await sr("POST", "/compatibility/subjects/contract-value/versions/latest", { schema: V2 });
    expect(ok.body).toEqual({ is_compatible: true });
    const removesField = avro([{ name: "c", type: "int", default: 0 }]);
    const verbose = await sr("POST", "/compatibility/subjects/contract-value/versions/latest?verbose=true", {
      schema: removesField,
    });
    expect(verbose.body).toEqual({
      is_compatible: false,
      messages: [expect.stringMatching(/READER_FIELD_MISSING_DEFAULT_VALUE/)],
    });
    expect((await sr("DELETE", "/config/contract-value")).body).toEqual({ compatibilityLevel: "FORWARD" });
    expectError(await sr("GET", "/config/contract-value"), 404, 40408);
  });

  it("JSON Schema and Protobuf: a refusal names Confluent's difference, verbose lists each with its location", async () => {
    const json = (properties: Record<string, unknown>) =>
      JSON.stringify({ type: "object", properties, additionalProperties: false });
    const proto = (body: string) => `syntax = "proto3";\npackage contract;\nmessage Event { ${body} }\n`;
    const cases = [
      {
        subject: "contract-json-value",
        schemaType: "JSON",
        v1: json({ id: { type: "string" }, note: { type: "string" } }),
        // Dropping a property from a closed content model: old data holding it no longer validates.
        v2: json({ id: { type: "string" } }),
        type: "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
        message:
          /^\{errorType:'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL', .*location:'#\/properties\/note'\}$/,
      },
      {
        subject: "contract-proto-value",
        schemaType: "PROTOBUF",
        v1: proto("optional int64 count = 1;"),
        // A numeric field made repeated changes its encoding (packed).
        v2: proto("repeated int64 count = 1;"),
        type: "FIELD_NUMERIC_LABEL_CHANGED",
        message: /^\{errorType:'FIELD_NUMERIC_LABEL_CHANGED', .*location:'#\/Event\/1'\}$/,
      },
    ];
    for (const { subject, schemaType, v1, v2, type, message } of cases) {
      expect((await sr("POST", `/subjects/${subject}/versions`, { schema: v1, schemaType })).status).toBe(
        200,
      );
      const check = await sr("POST", `/compatibility/subjects/${subject}/versions/latest?verbose=true`, {
        schema: v2,
        schemaType,
      });
      expect(check.body).toEqual({ is_compatible: false, messages: [expect.stringMatching(message)] });
      const refused = await sr("POST", `/subjects/${subject}/versions`, { schema: v2, schemaType });
      expectError(refused, 409, 409);
      expect((refused.body as { message: string }).message).toContain(`errorType:'${type}'`);
      expect((await sr("GET", `/subjects/${subject}/versions`)).body).toEqual([1]);
    }
  });

  it("references: a schema using another's type, referencedby, and a referenced version cannot be deleted", async () => {
    const a = await sr("POST", "/subjects/address/versions", { schema: ADDRESS_SCHEMA });
    const user = recordUsingAddress("Person");
    const references = ADDRESS_REFERENCES;
    const u = await sr("POST", "/subjects/person/versions", { schema: user, references });
    expect(u.status, u.text).toBe(200);
    const uid = (u.body as { id: number }).id;
    expect((await sr("GET", `/schemas/ids/${uid}`)).body).toEqual({ references, schema: user });
    expect((await sr("GET", "/subjects/address/versions/1/referencedby")).body).toEqual([uid]);
    expectError(await sr("DELETE", "/subjects/address/versions/1"), 422, 42206);
    expectError(await sr("POST", "/subjects/other/versions", { schema: user }), 422, 42201);
    expect((a.body as { id: number }).id).not.toBe(uid);
  });

  it("normalize=true stores the normalised form; IMPORT mode keeps ids it is given", async () => {
    const spaced = `{ "type": "record", "name": "Norm", "fields": [ { "name": "x", "type": "int" } ] }`;
    const n = await sr("POST", "/subjects/norm/versions?normalize=true", { schema: spaced });
    expect((await sr("GET", "/subjects/norm/versions/1/schema")).text).toBe(
      '{"name":"Norm","type":"record","fields":[{"name":"x","type":"int"}]}',
    );
    expect((await sr("POST", "/subjects/norm?normalize=true", { schema: spaced })).body).toMatchObject({
      id: (n.body as { id: number }).id,
    });
    expect((await sr("PUT", "/mode/imported?force=true", { mode: "IMPORT" })).body).toEqual({
      mode: "IMPORT",
    });
    const imported = await sr("POST", "/subjects/imported/versions", {
      schema: avro([{ name: "q", type: "int" }], "Imp"),
      id: 5000,
      version: 3,
    });
    expect(imported.body).toEqual({ id: 5000 });
    expect((await sr("GET", "/subjects/imported/versions")).body).toEqual([3]);
    expect((await sr("DELETE", "/mode/imported")).body).toEqual({ mode: "IMPORT" });
    const next = await sr("POST", "/subjects/after-import/versions", {
      schema: avro([{ name: "r", type: "int" }], "After"),
    });
    expect((next.body as { id: number }).id).toBe(5001);
  });

  it("deletes softly (40404 twice), lists deleted versions on request, then permanently", async () => {
    await sr("POST", "/subjects/gone/versions", { schema: avro([{ name: "g", type: "int" }], "Gone") });
    expect((await sr("DELETE", "/subjects/gone")).body).toEqual([1]);
    expectError(await sr("DELETE", "/subjects/gone"), 404, 40404);
    expectError(await sr("GET", "/subjects/gone/versions"), 404, 40401);
    expect((await sr("GET", "/subjects/gone/versions?deleted=true")).body).toEqual([1]);
    expect((await sr("GET", "/subjects?deleted=true")).body).toContain("gone");
    expect((await sr("GET", "/subjects")).body).not.toContain("gone");
    expect((await sr("DELETE", "/subjects/gone?permanent=true")).body).toEqual([1]);
    expectError(await sr("GET", "/subjects/gone/versions?deleted=true"), 404, 40401);
  });
});

describe("authentication, scopes and tenants", () => {
  it("refuses without credentials or with a secret under another key's id (401, 40101)", async () => {
    expectError(await call(h.server, null, "GET", "/subjects"), 401, 40101);
    const other = await issueKey(h, "sr-other");
    expectError(await call(h.server, { basic: ["not-the-id", h.key] }, "GET", "/subjects"), 401, 40101);
    expectError(await call(h.server, { basic: [h.keyId, other] }, "GET", "/subjects"), 401, 40101);
    expect((await call(h.server, { bearer: h.key }, "GET", "/subjects")).status).toBe(200);
  });

  it("reads need schemas:read and writes schemas:write (403, 40301), on every route", async () => {
    const reader = await issueKey(h, "sr-reader", ["schemas:read"]);
    const none = await issueKey(h, "sr-none", ["topics:read", "records:read"]);
    for (const route of REGISTRY_ROUTES) {
      const { path, body } = everyRouteRequest(route, {
        schema: V1,
        compatibility: "NONE",
        mode: "READWRITE",
      });
      const denied = await call(h.server, { bearer: none }, route.method, path, body);
      expect(denied.status, `${route.method} ${path}`).toBe(403);
      if (route.access === "write") {
        const refused = await call(h.server, { bearer: reader }, route.method, path, body);
        expectError(refused, 403, 40301);
      }
    }
  });

  it("another tenant sees none of this tenant's subjects, ids or configs, on any route, and changes none of them", async () => {
    const other = await provisionTenantKey(h.server, "SR Other Tenant");
    const before = await snapshot(owner());
    const auth: Auth = { basic: [other.keyId, other.key] };
    // Ids are per tenant: the other tenant's first schema is its own id 1, in a subject of the same name.
    const own = await call(h.server, auth, "POST", "/subjects/contract-value/versions", { schema: V2 });
    expect(own.body).toEqual({ id: 1 });
    expect((await call(h.server, auth, "GET", "/subjects/contract-value/versions/1")).body).toMatchObject({
      id: 1,
      schema: V2,
    });
    for (const route of REGISTRY_ROUTES) {
      const { path, body } = everyRouteRequest(route, {
        schema: V2,
        compatibility: "NONE",
        mode: "READONLY",
      });
      const answer = await call(h.server, auth, route.method, path, body);
      expect(answer.text, `${route.method} ${path}`).not.toContain(V1);
    }
    expect(await snapshot(owner())).toEqual(before);
  });
});

/**
 * A request for `route` on the contract subject's version 1 and schema id1, carrying `body` unless
 * the method has none (a body that fits every writing route: schema, compatibility and mode).
 */
function everyRouteRequest(route: (typeof REGISTRY_ROUTES)[number], body: Record<string, string>) {
  const path = `/${route.path.replace(":subject", "contract-value").replace(":version", "1").replace(":id", String(id1))}`;
  return { path, body: route.method === "GET" || route.method === "DELETE" ? undefined : body };
}

async function snapshot(auth: Auth): Promise<unknown> {
  const subjects = (await call(h.server, auth, "GET", "/subjects?deleted=true")).body as string[];
  const out: Record<string, unknown> = {};
  for (const subject of subjects) {
    out[subject] = {
      versions: (await call(h.server, auth, "GET", `/schemas?subjectPrefix=${subject}&deleted=true`)).body,
      config: (await call(h.server, auth, "GET", `/config/${subject}`)).body,
      mode: (await call(h.server, auth, "GET", `/mode/${subject}`)).body,
    };
  }
  out["/config"] = (await call(h.server, auth, "GET", "/config")).body;
  out["/mode"] = (await call(h.server, auth, "GET", "/mode")).body;
  return out;
}

describe("storage: the tenant's _schemas topic", () => {
  it("is visible and readable but refuses client writes over REST and Kafka", async () => {
    const listed = await rest(h.server, { apiKey: h.key }, "GET", "/topics");
    expect(
      (listed.body.topics as { name: string; cleanupPolicy: string }[]).find(
        (t) => t.name === SCHEMA_REGISTRY_TOPIC,
      ),
    ).toMatchObject({
      cleanupPolicy: "compact",
      partitions: 1,
    });
    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/${SCHEMA_REGISTRY_TOPIC}/partitions/0/records?offset=0`,
    );
    expect(read.status).toBe(200);
    expect((read.body.records as unknown[]).length).toBeGreaterThan(0);
    const refusals = [
      await rest(h.server, { apiKey: h.key }, "POST", `/topics/${SCHEMA_REGISTRY_TOPIC}/records`, {
        records: [{ key: { type: "string", data: "x" }, value: { type: "string", data: "y" } }],
      }),
      await rest(h.server, { apiKey: h.key }, "DELETE", `/topics/${SCHEMA_REGISTRY_TOPIC}`),
      await rest(h.server, { apiKey: h.key }, "DELETE", `/topics/${SCHEMA_REGISTRY_TOPIC}/keys/x`),
      await rest(h.server, { apiKey: h.key }, "PATCH", `/topics/${SCHEMA_REGISTRY_TOPIC}/configs`, {
        set: { "retention.ms": 1000 },
      }),
    ];
    for (const refusal of refusals) expect(refusal.status, JSON.stringify(refusal.body)).toBe(403);
    const kafka = worldKafka(h, "sr-protected");
    const producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
    const produced = await producer
      .send({ topic: SCHEMA_REGISTRY_TOPIC, messages: [{ key: "x", value: "y" }] })
      .catch((e: unknown) => e);
    await producer.disconnect();
    expect(String((produced as Error).message ?? produced)).toMatch(/authoriz/i);
    const admin = kafka.admin();
    await admin.connect();
    const deleted = await admin.deleteTopics({ topics: [SCHEMA_REGISTRY_TOPIC] }).catch((e: unknown) => e);
    await admin.disconnect();
    expect(deleted).toBeInstanceOf(Error);
    expect((await sr("GET", "/subjects/contract-value/versions")).status).toBe(200);
  });

  it("a write in one web process is read by the next request in another; concurrent registrations get distinct ids", async () => {
    const second = anotherWebProcess(h);
    const written = await call(second, owner(), "POST", "/subjects/cross/versions", {
      schema: avro([{ name: "c", type: "int" }], "Cross"),
    });
    expect((await sr("GET", "/subjects/cross/versions/latest")).body).toMatchObject({
      id: (written.body as { id: number }).id,
    });
    await sr("PUT", "/config/race", { compatibility: "NONE" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(i % 2 ? second : h.server, owner(), "POST", "/subjects/race/versions", {
          schema: avro([{ name: `f${i}`, type: "int" }], "Race"),
        }),
      ),
    );
    const ids = answers.map((a) => (a.body as { id: number }).id);
    expect(new Set(ids).size, JSON.stringify(answers.map((a) => [a.status, a.body]))).toBe(12);
    expect((await sr("GET", "/subjects/race/versions")).body).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    for (const [i, id] of ids.entries()) {
      expect((await call(second, owner(), "GET", `/schemas/ids/${id}`)).body).toEqual({
        schema: avro([{ name: `f${i}`, type: "int" }], "Race"),
      });
    }
    await second.close(1000);
  });
});
