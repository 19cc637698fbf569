import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LastwordClient, type LastwordClientOptions } from "@lastword/client";
import { DataPlaneClient } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { usePerFile } from "@lastword/db/testing-hooks";
import { Redis } from "ioredis";
import {
  type ApiServer,
  type ApiServerOptions,
  type Clock,
  createApiServer,
  type MailMessage,
  outboxMailSender,
  type Scope,
} from "../src/index";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

export const PUBLIC_URL = "http://localhost:3999";
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

interface QuotaLimits {
  maxPartitions: number;
  maxStoredBytes: bigint;
  produceBytesPerSecond: number;
  requestsPerSecond: number;
}

/**
 * Gives a tenant its own quota row: generous limits except the ones a test is about. Written to
 * Postgres only; a server that cached the tenant's quota sees it after `forgetTenantQuota` or its TTL.
 */
export async function createQuota(
  prisma: PrismaClient,
  organizationId: string,
  limits: Partial<QuotaLimits>,
): Promise<void> {
  await prisma.quota.create({
    data: {
      organizationId,
      maxPartitions: 100,
      maxStoredBytes: 1n << 30n,
      produceBytesPerSecond: 1 << 20,
      requestsPerSecond: 100,
      ...limits,
    },
  });
}

/**
 * Edits audit rows as an attacker with table rights would: past the append-only trigger, in one
 * transaction (`sql` is an UPDATE of "AuditEvent" with `$1`… bound to `params`).
 */
export async function tamperAuditEvents(
  prisma: PrismaClient,
  sql: string,
  ...params: unknown[]
): Promise<void> {
  await prisma.$transaction([
    prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER "AuditEvent_append_only"`),
    prisma.$executeRawUnsafe(sql, ...params),
    prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER "AuditEvent_append_only"`),
  ]);
}

export interface Harness {
  db: TestDatabase;
  redis: Redis;
  redisPrefix: string;
  server: ApiServer;
  secret: string;
  /** The server's data-plane client, for a test that asks a worker directly (clean, look up). */
  dataPlane: DataPlaneClient;
  /** Every message the server sent (verification links), newest last. */
  mail: MailMessage[];
  close(): Promise<void>;
}

/**
 * A real server over a fresh database and a unique Redis prefix (removed again by close()); with
 * `clock`, the server reads that clock (a test that needs time moves it instead of sleeping).
 */
export async function startHarness(name: string, options: { clock?: Clock } = {}): Promise<Harness> {
  const db = await createTestDatabase(`lastword_test_${name}`);
  const redis = new Redis(REDIS_URL, { lazyConnect: false });
  const redisPrefix = `lwtest-${name}-${randomBytes(4).toString("hex")}`;
  const secret = randomBytes(16).toString("hex");
  const dataPlane = new DataPlaneClient({ prisma: db.prisma, secret, ownerWaitMs: 15_000 });
  const outbox = outboxMailSender();
  const server = createApiServer({
    mailSender: outbox,
    prisma: db.prisma,
    redis,
    dataPlane,
    publicUrl: PUBLIC_URL,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    db,
    redis,
    redisPrefix,
    server,
    secret,
    dataPlane,
    mail: outbox.sent,
    async close() {
      // The server's write-behind usage flush would otherwise reconnect Prisma after the database
      // is dropped (FORCE ends that connection: an unhandled pg error in the test process).
      await server.close(5_000);
      dataPlane.close();
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await db.drop();
    },
  };
}

/**
 * Another web process: an API server over the harness's database, Redis and data plane that has
 * cached nothing (its own auth secret: the harness's sessions are not its), with `options` over that.
 */
export function anotherWebProcess(h: Harness, options: Partial<ApiServerOptions> = {}): ApiServer {
  return createApiServer({
    prisma: h.db.prisma,
    redis: h.redis,
    dataPlane: h.dataPlane,
    publicUrl: PUBLIC_URL,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix: h.redisPrefix,
    ...options,
  });
}

/**
 * The file's harness, started before its tests and closed after them. The object is filled in by
 * `beforeAll`, so read its fields inside hooks and tests, not at the top level of the file.
 */
export function useHarness(name: string, options: { clock?: Clock } = {}): Harness {
  return usePerFile(
    () => startHarness(name, options),
    (h) => h.close(),
  );
}

/** A tenant with its owner and one API key, as `provisionTenantKey` makes it. */
export interface TenantKey {
  organizationId: string;
  userId: string;
  /** The owner's sign-in credentials. */
  email: string;
  password: string;
  /** The API key (a bearer token), and its id (its SCRAM user name on the Kafka listener). */
  key: string;
  keyId: string;
}

/**
 * A new tenant named `name` whose owner's email and password derive from the name, with one API
 * key (the default read/write scopes unless `scopes` names others).
 */
export async function provisionTenantKey(
  server: ApiServer,
  name: string,
  scopes?: Scope[],
): Promise<TenantKey> {
  const slug = name.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-");
  const email = `owner@${slug}.example`;
  const password = `${slug}-pass-1`;
  const tenant = await server.provisionTenant({ name, email, password });
  const issued = await server.createApiKey({ ...tenant, name: slug, ...(scopes ? { scopes } : {}) });
  return { ...tenant, email, password, key: issued.key, keyId: issued.id };
}

/** The TypeScript client over the server's REST handler in this process, as `apiKey`. */
export function restClient(
  server: ApiServer,
  apiKey: string,
  options: Omit<LastwordClientOptions, "baseUrl" | "apiKey" | "fetch"> = {},
): LastwordClient {
  return new LastwordClient({
    baseUrl: PUBLIC_URL,
    apiKey,
    fetch: (req) => server.handleRest(req),
    ...options,
  });
}

export { str } from "./record-envelopes";

/**
 * A call to better-auth's own routes (`path` below /api/auth) with the session's cookie and our
 * origin, as the console's forms send it.
 */
export async function authCall(
  server: ApiServer,
  path: string,
  session: Session,
  body: unknown,
  method = "POST",
): Promise<{ status: number; text: string }> {
  const response = await server.auth.handler(
    new Request(`${PUBLIC_URL}/api/auth${path}`, {
      method,
      headers: { "content-type": "application/json", cookie: session.cookie, origin: PUBLIC_URL },
      body: method === "GET" ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, text: await response.text() };
}

/** Switches the session's active tenant, as the console's tenant switcher does. */
export function setActiveTenant(server: ApiServer, session: Session, organizationId: string) {
  return authCall(server, "/organization/set-active", session, { organizationId });
}

/**
 * A real worker process on the harness's database, with its own data dir (remove it after) and
 * the harness's Redis prefix. With `tickMs` its scheduler (cleaner, erasure guard and request
 * progress) runs on that tick. With `objectStore` it keeps partitions in a filesystem object
 * store of its own, `objectsDir` (remove it after too).
 */
export async function startHarnessWorker(
  h: Harness,
  tickMs?: number,
  options: { objectStore?: boolean; objectsDir?: string; leaseTtlMs?: number } = {},
): Promise<{ worker: WorkerProcess; dataDir: string; objectsDir: string | null }> {
  const dataDir = mkdtempSync(join(tmpdir(), `lastword-api-${h.redisPrefix}-`));
  // `objectsDir`: another machine on the same object store (its own empty disk).
  const objectsDir =
    options.objectsDir ??
    (options.objectStore ? mkdtempSync(join(tmpdir(), `lastword-api-objects-${h.redisPrefix}-`)) : null);
  const worker = await startWorkerProcess({
    databaseUrl: h.db.url,
    dataDir,
    secret: h.secret,
    redisUrl: REDIS_URL,
    redisPrefix: h.redisPrefix,
    ...(tickMs === undefined ? {} : { tickMs }),
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    ...(objectsDir === null ? {} : { objectStore: objectsDir }),
  });
  return { worker, dataDir, objectsDir };
}

export interface Session {
  cookie: string;
  userId: string;
}

export async function signUp(server: ApiServer, email: string, name = "Ada"): Promise<Session> {
  const response = await server.auth.handler(
    new Request(`${PUBLIC_URL}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: PUBLIC_URL },
      body: JSON.stringify({ email, password: "correct horse battery", name }),
    }),
  );
  if (response.status !== 200) throw new Error(`sign-up ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { user: { id: string } };
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, userId: body.user.id };
}

/** The invitation id and token an invitation link carries (`members.invite` answers with it). */
export function invitationFromLink(link: string): { invitationId: string; token: string } {
  const url = new URL(link);
  const invitationId = decodeURIComponent(url.pathname.replace(/^\/invitations\//, ""));
  const token = url.searchParams.get("token");
  if (!token) throw new Error(`no token in invitation link ${link}`);
  return { invitationId, token };
}

/** Owner (or any member allowed to) invites `email`; returns the link's id and token. */
export async function invite(
  server: ApiServer,
  caller: Caller,
  email: string,
  role: string,
): Promise<{ invitationId: string; token: string }> {
  const invited = await trpc(server, caller, "mutation", "members.invite", { email, role });
  if (invited.status !== 200) throw new Error(`invite ${invited.status}: ${JSON.stringify(invited.body)}`);
  return invitationFromLink((invited.body.result!.data as { link: string }).link);
}

/** Accepts through our procedure, as the console's invitation page does. */
export async function acceptInvitation(
  server: ApiServer,
  session: Session,
  input: { invitationId: string; token?: string },
) {
  return trpc(server, { cookie: session.cookie }, "mutation", "invitations.accept", input);
}

export interface Caller {
  cookie?: string;
  apiKey?: string;
}

function authHeaders(caller: Caller): Record<string, string> {
  if (caller.apiKey) return { authorization: `Bearer ${caller.apiKey}` };
  if (caller.cookie) return { cookie: caller.cookie };
  return {};
}

export async function trpc(
  server: ApiServer,
  caller: Caller,
  kind: "query" | "mutation",
  path: string,
  input?: unknown,
): Promise<{ status: number; body: { result?: { data: unknown }; error?: { data: { code: string } } } }> {
  const url = new URL(`${PUBLIC_URL}/api/trpc/${path}`);
  if (kind === "query" && input !== undefined) url.searchParams.set("input", JSON.stringify(input));
  const response = await server.handleTrpc(
    new Request(url, {
      method: kind === "query" ? "GET" : "POST",
      headers: { "content-type": "application/json", ...authHeaders(caller) },
      body: kind === "mutation" ? JSON.stringify(input ?? {}) : undefined,
    }),
  );
  return { status: response.status, body: (await response.json()) as never };
}

export async function rest(
  server: ApiServer,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; headers: Headers; body: Record<string, unknown> }> {
  const response = await server.handleRest(
    new Request(`${PUBLIC_URL}/api/v1${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...authHeaders(caller),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    headers: response.headers,
    body: text ? JSON.parse(text) : {},
  };
}

/** Every record of a client stream, and the offsets it ended with (its return value). */
export async function drain<R, O>(stream: AsyncGenerator<R, O>): Promise<{ records: R[]; offsets: O }> {
  const records: R[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) return { records, offsets: next.value };
    records.push(next.value);
  }
}

/**
 * Serves a fetch-style handler on a loopback port (node:http), so a test can send raw HTTP: the
 * request line's path reaches the handler exactly as written, percent-escapes and all.
 */
export async function serveOverHttp(
  handle: (request: Request) => Promise<Response>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, v);
    }
    const method = req.method ?? "GET";
    const body =
      method === "GET" || method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks);
    const response = await handle(
      new Request(`http://${req.headers.host}${req.url}`, { method, headers, body }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An API key `caller` creates through the console's procedure; throws unless it is created. */
export async function createKeyAs(
  server: ApiServer,
  caller: Caller,
  name: string,
  scopes: string[],
): Promise<{ id: string; key: string }> {
  const created = await trpc(server, caller, "mutation", "apiKeys.create", { name, scopes });
  if (created.status !== 200)
    throw new Error(`apiKeys.create ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.result!.data as { id: string; key: string };
}

/** A person who signed up, was invited by `inviter` with `role` and accepted with the link. */
export async function joinAs(
  server: ApiServer,
  inviter: Session,
  email: string,
  role: string,
): Promise<Session> {
  const invitation = await invite(server, { cookie: inviter.cookie }, email, role);
  const session = await signUp(server, email, email.split("@")[0]);
  const accepted = await acceptInvitation(server, session, invitation);
  if (accepted.status !== 200)
    throw new Error(`invitations.accept ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  return session;
}
