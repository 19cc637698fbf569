import { request } from "node:http";
import { LastwordApiError, LastwordClient } from "@lastword/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveOverHttp } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

const h = useTenantWorld("key_encoding", {
  topics: ["raw", "typed", "dots"].map((name) => ({
    name,
    partitions: 3,
    configs: { "cleanup.policy": "compact" },
  })),
});
let http: { url: string; close(): Promise<void> };
let client: LastwordClient;

// Every key route addresses the key by its path segment; each of these must name the key itself.
// `path` is written by hand (not by encodeURIComponent) so the test pins what a curl user sends.
const TEXT_KEYS = [
  { name: "space", key: "user 1", path: "user%201" },
  { name: "slash", key: "tenants/7/user", path: "tenants%2F7%2Fuser" },
  { name: "percent", key: "100%", path: "100%25" },
  { name: "literal escape", key: "user%201", path: "user%25201" },
  { name: "question mark", key: "what?x=1", path: "what%3Fx=1" },
  { name: "hash", key: "#tag", path: "%23tag" },
  { name: "at sign, raw", key: "me@example.com", path: "me@example.com" },
  { name: "at sign, escaped", key: "you@example.com", path: "you%40example.com" },
  { name: "NUL", key: "nul\u0000byte", path: "nul%00byte" },
  { name: "non-ASCII", key: "grüße", path: "gr%C3%BC%C3%9Fe" },
  { name: "emoji", key: "party 🎉", path: "party%20%F0%9F%8E%89" },
  { name: "plus", key: "a+b", path: "a+b" },
  { name: "dot", key: ".", path: null },
  { name: "dot dot", key: "..", path: null },
] as const;

// Bytes that are not UTF-8, and whose base64 holds `+`, `/` and `=`: "+/8A/g==".
const BINARY_KEY = Buffer.from([0xfb, 0xff, 0x00, 0xfe]);
const BINARY_PATH = "%2B%2F8A%2Fg%3D%3D?keyType=base64";

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${http.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

function withQuery(path: string, extra: string): string {
  return path.includes("?") ? path.replace("?", `${extra}?`) : `${path}${extra}`;
}

/** Produces `value` under `key` (an envelope), then checks every key route by `segment`. */
async function checkKeyRoutes(topic: string, key: { type: string; data: string }, segment: string) {
  const produced = await call("POST", `/topics/${topic}/records`, {
    records: [{ key, value: { type: "string", data: `value of ${segment}` } }],
  });
  expect(produced.status).toBe(200);
  const base = `/topics/${topic}/keys/${segment}`;
  const got = await call("GET", base);
  expect(got.status, `GET ${base}`).toBe(200);
  expect(got.body.value).toEqual({ type: "string", data: `value of ${segment}` });
  const versions = await call("GET", withQuery(base, "/versions"));
  expect(versions.status).toBe(200);
  expect(versions.body.versions).toHaveLength(1);

  const deleted = await call("DELETE", base);
  expect(deleted.status, `DELETE ${base}`).toBe(200);
  const gone = await call("GET", base);
  expect(gone.status, "the key itself is tombstoned").toBe(404);
  expect(gone.body.code).toBe("KEY_NOT_FOUND");
  const after = (await call("GET", withQuery(base, "/versions"))).body.versions as { tombstone: boolean }[];
  expect(after.map((v) => v.tombstone)).toEqual([false, true]);
}

beforeAll(async () => {
  http = await serveOverHttp((req) => h.server.handleRest(req));
  client = new LastwordClient({ baseUrl: http.url, apiKey: h.key });
});
afterAll(async () => {
  await http?.close();
});

describe("key path parameters over raw HTTP", () => {
  it.each(TEXT_KEYS.filter((k) => k.path !== null))(
    "get, versions and delete address the key with a $name",
    async ({ key, path }) => {
      await checkKeyRoutes("raw", { type: "string", data: key }, path!);
    },
  );

  it("addresses a binary key by its percent-encoded base64 with keyType=base64", async () => {
    await checkKeyRoutes("raw", { type: "base64", data: BINARY_KEY.toString("base64") }, BINARY_PATH);
  });

  it("reaches the keys . and .. by base64 (URL parsers resolve them, even as %2E, as dot segments)", async () => {
    await checkKeyRoutes("raw", { type: "string", data: "." }, "Lg%3D%3D?keyType=base64");
    await checkKeyRoutes("raw", { type: "string", data: ".." }, "Li4%3D?keyType=base64");
  });

  it("answers 400 for a malformed escape and a key over the size limit, not a lookup", async () => {
    const malformed = await call("GET", "/topics/raw/keys/%E0%A4%A");
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("INVALID_INPUT");
    const long = await call("GET", `/topics/raw/keys/${"k".repeat(4097)}`);
    expect([400, 413]).toContain(long.status);
  });
});

describe("key routes through the typed client", () => {
  it.each(TEXT_KEYS)("get, versions and delete the key with a $name", async ({ key }) => {
    await client.records.produce("typed", [
      { key: { type: "string", data: key }, value: { type: "string", data: "v" } },
    ]);
    expect((await client.keys.get("typed", key)).value).toEqual({ type: "string", data: "v" });
    expect((await client.keys.versions("typed", key)).versions).toHaveLength(1);
    await client.records.deleteKey("typed", key);
    const missing = await client.keys.get("typed", key).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(LastwordApiError);
    expect((missing as LastwordApiError).problem.code).toBe("KEY_NOT_FOUND");
    const versions = (await client.keys.versions("typed", key)).versions;
    expect(versions.map((v) => v.tombstone)).toEqual([false, true]);
  });

  it("takes a binary key as bytes", async () => {
    const key = { type: "base64", data: BINARY_KEY.toString("base64") } as const;
    await client.records.produce("typed", [{ key, value: { type: "string", data: "bytes" } }]);
    expect((await client.keys.get("typed", BINARY_KEY)).value).toEqual({ type: "string", data: "bytes" });
    expect((await client.keys.versions("typed", new Uint8Array(BINARY_KEY))).versions).toHaveLength(1);
    await client.records.deleteKey("typed", BINARY_KEY);
    const versions = (await client.keys.versions("typed", BINARY_KEY)).versions;
    expect(versions.map((v) => v.tombstone)).toEqual([false, true]);
  });
});

/** One request over a socket with `path` exactly as written: node:http sends it unresolved. */
function rawHttp(method: string, path: string): Promise<{ status: number; location?: string; body: string }> {
  const { hostname, port } = new URL(http.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { authorization: `Bearer ${h.key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers.location ? { location: res.headers.location } : {}),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

// Issue 28.7: `DELETE /api/v1/topics/T/keys/..` reached the handler as `/api/v1/topics/T/` (URL
// parsers resolve dot segments, also %2E%2E), which matched the topic's own route or (in Next.js)
// a 308 to it: clients that follow redirects deleted the topic. No path ending in "/" names a
// resource, and nothing redirects; the keys themselves are reached by base64 (tested above).
describe("a dot-segment key never reaches its topic", () => {
  it.each(["..", "%2E%2E", "%2e.", ".%2E", ".", "%2E"])(
    "DELETE /topics/dots/keys/%s answers 404 naming the base64 form, and the topic keeps its records",
    async (segment) => {
      const produced = await call("POST", "/topics/dots/records", {
        records: [{ key: { type: "string", data: segment }, value: { type: "string", data: "kept" } }],
      });
      expect(produced.status).toBe(200);
      const answer = await rawHttp("DELETE", `/api/v1/topics/dots/keys/${segment}`);
      expect(answer.status, answer.body).toBe(404);
      expect(answer.location).toBeUndefined();
      expect(JSON.parse(answer.body)).toMatchObject({ code: "NOT_FOUND" });
      expect(JSON.parse(answer.body).detail).toContain("keyType=base64");
      expect((await call("GET", "/topics/dots")).status, "the topic is still there").toBe(200);
      const base64 = encodeURIComponent(Buffer.from(segment).toString("base64"));
      const key = await call("GET", `/topics/dots/keys/${base64}?keyType=base64`);
      expect(key.status, "nothing was deleted").toBe(200);
      expect(key.body.value).toEqual({ type: "string", data: "kept" });
    },
  );

  it("answers 404 for any API path ending in '/', the topic's own included", async () => {
    for (const method of ["DELETE", "GET", "PATCH"]) {
      const answer = await rawHttp(method, "/api/v1/topics/dots/");
      expect(answer.status, `${method}: ${answer.body}`).toBe(404);
      expect(answer.location).toBeUndefined();
    }
    expect((await call("GET", "/topics/dots")).status).toBe(200);
    // The typed client sends . and .. as base64, so it deletes the key, never the topic.
    await client.records.produce("dots", [
      { key: { type: "string", data: ".." }, value: { type: "string", data: "v" } },
    ]);
    await client.records.deleteKey("dots", "..");
    expect((await client.keys.versions("dots", "..")).versions.at(-1)?.tombstone).toBe(true);
    expect((await call("GET", "/topics/dots")).status).toBe(200);
  });
});
