import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { encodeProduceFrames } from "@lastword/client";
import { DataPlaneClient } from "@lastword/dataplane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, createApiServer } from "../src/index";
import {
  type Harness,
  PUBLIC_URL,
  rest,
  type Session,
  signUp,
  startHarness,
  startHarnessWorker,
} from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// A page on another site can make the victim's browser send the session cookie with a POST whose
// Content-Type is text/plain (no preflight). Such a request must change nothing.
let h: Harness;
let worker: WorkerProcess;
let dataDir: string;
let owner: Session;
let apiKey: string;

const EVIL = "https://evil.example";
const FRAMES = "application/vnd.lastword.frames";
const frames = (): Uint8Array<ArrayBuffer> =>
  new Uint8Array(
    encodeProduceFrames([{ key: { type: "string", data: "k" }, value: { type: "string", data: "v" } }]),
  );

async function storedCount(): Promise<number> {
  const read = await rest(h.server, { apiKey }, "GET", "/topics/csrf/partitions/0/records");
  return (read.body.records as unknown[]).length;
}

function post(path: string, headers: Record<string, string>, body: string | Uint8Array<ArrayBuffer>) {
  return h.server.handleRest(new Request(`${PUBLIC_URL}/api/v1${path}`, { method: "POST", headers, body }));
}

function trpcMutation(headers: Record<string, string>, input: unknown) {
  return h.server.handleTrpc(
    new Request(`${PUBLIC_URL}/api/trpc/topics.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: owner.cookie, ...headers },
      body: JSON.stringify(input),
    }),
  );
}

beforeAll(async () => {
  h = await startHarness("cross_origin");
  ({ worker, dataDir } = await startHarnessWorker(h));
  owner = await signUp(h.server, "csrf@example.com", "Owner");
  const member = await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } });
  ({ key: apiKey } = await h.server.createApiKey({
    organizationId: member.organizationId,
    userId: owner.userId,
    name: "admin",
  }));
  expect((await rest(h.server, { apiKey }, "POST", "/topics", { name: "csrf", partitions: 1 })).status).toBe(
    201,
  );
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("media types are matched exactly", () => {
  it("refuses a text/plain body that names the binary format in a parameter (415), writing nothing", async () => {
    const res = await post(
      "/topics/csrf/records",
      { cookie: owner.cookie, origin: EVIL, "content-type": `text/plain; x=${FRAMES}` },
      frames(),
    );
    expect(res.status).toBe(415);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await storedCount()).toBe(0);
  });

  it("refuses application/jsonx and other near-JSON types with 415 problem+json", async () => {
    for (const type of [
      "application/jsonx",
      "text/plain; a=application/json",
      "application/json-seq",
      "application/json; charset=latin1",
    ]) {
      const res = await post(
        "/topics/csrf/records",
        { authorization: `Bearer ${apiKey}`, "content-type": type },
        "{}",
      );
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { code: string }).code, type).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("takes the type case-insensitively, with parameters", async () => {
    const body = JSON.stringify({
      records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: "json" } }],
    });
    const json = await post(
      "/topics/csrf/records",
      { authorization: `Bearer ${apiKey}`, "content-type": 'Application/JSON ; charset="UTF-8"' },
      body,
    );
    expect(json.status).toBe(200);
    const binary = await post(
      "/topics/csrf/records",
      { authorization: `Bearer ${apiKey}`, "content-type": `${FRAMES.toUpperCase()}; v=1` },
      frames(),
    );
    expect(binary.status).toBe(200);
    expect(await storedCount()).toBe(2);
  });
});

describe("a session's changes only from the console's own pages", () => {
  it("refuses the binary produce with the session cookie from another origin (403), writing nothing", async () => {
    const before = await storedCount();
    const res = await post(
      "/topics/csrf/records",
      { cookie: owner.cookie, origin: EVIL, "content-type": FRAMES },
      frames(),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
    expect(await storedCount()).toBe(before);
    const same = await post(
      "/topics/csrf/records",
      { cookie: owner.cookie, origin: PUBLIC_URL, "content-type": FRAMES },
      frames(),
    );
    expect(same.status).toBe(200);
    expect(await storedCount()).toBe(before + 1);
  });

  it("refuses REST POST, PATCH and DELETE with the cookie by Origin, Sec-Fetch-Site or Referer", async () => {
    const foreign: Record<string, string>[] = [
      { origin: EVIL },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { referer: `${EVIL}/page` },
    ];
    for (const headers of foreign) {
      const session = { cookie: owner.cookie };
      const created = await rest(h.server, session, "POST", "/topics", { name: "forged" }, headers);
      expect(created.status, JSON.stringify(headers)).toBe(403);
      const altered = await rest(
        h.server,
        session,
        "PATCH",
        "/topics/csrf/configs",
        { set: { "retention.ms": 1 } },
        headers,
      );
      expect(altered.status, JSON.stringify(headers)).toBe(403);
      const deleted = await rest(h.server, session, "DELETE", "/topics/csrf", undefined, headers);
      expect(deleted.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await rest(h.server, { apiKey }, "GET", "/topics/csrf")).status).toBe(200);
    expect((await rest(h.server, { apiKey }, "GET", "/topics/forged")).status).toBe(404);
  });

  it("still reads cross-origin with the cookie (the browser keeps the answer from the page) and takes API keys from anywhere", async () => {
    expect(
      (await rest(h.server, { cookie: owner.cookie }, "GET", "/topics/csrf", undefined, { origin: EVIL }))
        .status,
    ).toBe(200);
    const byKey = await rest(h.server, { apiKey }, "POST", "/topics", { name: "by-key" }, { origin: EVIL });
    expect(byKey.status).toBe(201);
  });

  it("refuses tRPC mutations from another origin and takes them from the console's", async () => {
    expect((await trpcMutation({ origin: EVIL }, { name: "forged-trpc" })).status).toBe(403);
    expect((await trpcMutation({ "sec-fetch-site": "cross-site" }, { name: "forged-trpc" })).status).toBe(
      403,
    );
    expect((await trpcMutation({ origin: PUBLIC_URL }, { name: "console-trpc" })).status).toBe(200);
    expect((await trpcMutation({ "sec-fetch-site": "same-origin" }, { name: "console-trpc-2" })).status).toBe(
      200,
    );
    // The console reached by the host it was sent to (e.g. 127.0.0.1 rather than localhost).
    const byHost = await trpcMutation(
      { origin: "http://127.0.0.1:3999", host: "127.0.0.1:3999" },
      { name: "by-host" },
    );
    expect(byHost.status).toBe(200);
    expect((await rest(h.server, { apiKey }, "GET", "/topics/forged-trpc")).status).toBe(404);
  });

  it("better-auth refuses its own cookie-carrying POSTs from another origin", async () => {
    const res = await h.server.handleAuth(
      new Request(`${PUBLIC_URL}/api/auth/organization/create`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: owner.cookie, origin: EVIL },
        body: JSON.stringify({ name: "Forged", slug: "forged-org-1" }),
      }),
    );
    expect(res.status).toBe(403);
    expect(await h.db.prisma.organization.count({ where: { slug: "forged-org-1" } })).toBe(0);
  });
});

describe("session cookies", () => {
  it("are Secure when the console is served over https, and not over plain http", async () => {
    const publicUrl = "https://console.example";
    const https = createApiServer({
      prisma: h.db.prisma,
      redis: h.redis,
      dataPlane: new DataPlaneClient({ prisma: h.db.prisma, secret: h.secret }),
      publicUrl,
      authSecret: randomBytes(32).toString("hex"),
      redisPrefix: h.redisPrefix,
    });
    const signUpAt = (server: ApiServer, url: string, email: string) =>
      server.handleAuth(
        new Request(`${url}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: url },
          body: JSON.stringify({ email, password: "correct horse battery", name: "Tls" }),
        }),
      );
    const secure = await signUpAt(https, publicUrl, "tls@example.com");
    expect(secure.status).toBe(200);
    const cookies = secure.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);
    const plain = await signUpAt(h.server, PUBLIC_URL, "plain@example.com");
    for (const cookie of plain.headers.getSetCookie()) expect(cookie).not.toMatch(/;\s*Secure/i);
  });
});
