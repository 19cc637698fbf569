import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock } from "@lastword/logstore";
import { beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../src/api-server";
import { AUTH_RATE_RULES, ORGANIZATION_CREATIONS_PER_HOUR } from "../src/auth/auth-rate-limit";
import { outboxMailSender } from "../src/auth/mail-sender";
import { parseTrustedProxies } from "../src/http/client-address";
import { anotherWebProcess, PUBLIC_URL, type Session, signUp, useHarness } from "./api-harness";

// The repro: 12 password guesses, each with a random X-Forwarded-For, none throttled. Limits now
// key on the TCP peer (or what a trusted proxy forwarded), counted in Redis across web processes.
const clock = new ManualClock();
const h = useHarness("auth_rate_limits", { clock });
const PASSWORD = "correct horse battery";
const SIGN_IN_MAX = AUTH_RATE_RULES.find((r) => r.name === "sign-in")!.max;
const SIGN_UP_MAX = AUTH_RATE_RULES.find((r) => r.name === "sign-up")!.max;

const randomAddress = () => [...randomBytes(4)].join(".");

/** A fresh deployment's web process (its own Redis prefix, so its own counters). */
function makeServer(options: { trustProxy?: string; maxOrganizationsPerUser?: number } = {}): ApiServer {
  return anotherWebProcess(h, {
    redisPrefix: `${h.redisPrefix}-${randomBytes(3).toString("hex")}`,
    clock,
    mailSender: outboxMailSender(),
    trustedProxies: parseTrustedProxies(options.trustProxy),
    ...(options.maxOrganizationsPerUser && { maxOrganizationsPerUser: options.maxOrganizationsPerUser }),
  });
}

function authRequest(path: string, body: unknown, headers: Record<string, string> = {}, cookie?: string) {
  return new Request(`${PUBLIC_URL}/api/auth${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: PUBLIC_URL,
      ...(cookie && { cookie }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const guess = (server: ApiServer, peerAddress: string | undefined, forwardedFor = randomAddress()) =>
  server.handleAuth(
    authRequest(
      "/sign-in/email",
      { email: "owner@example.com", password: "wrong-password-1" },
      { "x-forwarded-for": forwardedFor },
    ),
    { peerAddress },
  );

// The account every guess is at (signed up directly through better-auth, outside the limits).
beforeAll(async () => {
  await signUp(h.server, "owner@example.com", "Owner");
});

describe("sign-in and sign-up limits", () => {
  it("throttle password guesses from one peer however X-Forwarded-For changes, and no other peer", async () => {
    const server = makeServer();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await guess(server, "203.0.113.7")).status);
    expect(statuses.slice(0, SIGN_IN_MAX)).toEqual(Array(SIGN_IN_MAX).fill(401));
    expect(statuses.slice(SIGN_IN_MAX)).toEqual(Array(12 - SIGN_IN_MAX).fill(429));
    const refused = await guess(server, "203.0.113.7");
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      status: 429,
      code: "RATE_LIMITED",
      limit: "sign-in",
      // What the console's sign-in form shows (better-auth's client reads `message`).
      message: expect.stringMatching(/^Too many attempts from this address/),
    });
    // Another address guesses on; and the right password from the throttled one waits too.
    expect((await guess(server, "203.0.113.8")).status).toBe(401);
    const rightPassword = await server.handleAuth(
      authRequest("/sign-in/email", { email: "owner@example.com", password: PASSWORD }),
      { peerAddress: "203.0.113.7" },
    );
    expect(rightPassword.status).toBe(429);
    // Past the window the peer may try again.
    clock.advance(11_000);
    expect((await guess(server, "203.0.113.7")).status).toBe(401);
  });

  it("count another web process's attempts too (one Redis counter)", async () => {
    // The harness's Redis prefix: another web process of the same deployment.
    const shared = anotherWebProcess(h, { clock, mailSender: outboxMailSender() });
    const peer = "198.51.100.44";
    for (let i = 0; i < SIGN_IN_MAX; i++) {
      expect((await guess(i % 2 === 0 ? h.server : shared, peer)).status).toBe(401);
    }
    expect((await guess(shared, peer)).status).toBe(429);
    expect((await guess(h.server, peer)).status).toBe(429);
  });

  it("over real HTTP: the socket's peer counts, not the X-Forwarded-For a client writes", async () => {
    const server = makeServer();
    // What the web's server.mjs and auth route do (their stamp: apps/web peer-stamp.test.ts):
    // hand the socket's remote address to handleAuth.
    const http = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers(req.headers as Record<string, string>);
      const response = await server.handleAuth(
        new Request(`${PUBLIC_URL}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
        { peerAddress: req.socket.remoteAddress },
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/api/auth/sign-in/email`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: PUBLIC_URL,
            "x-forwarded-for": randomAddress(),
          },
          body: JSON.stringify({ email: "owner@example.com", password: "wrong-password-1" }),
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(SIGN_IN_MAX).fill(401), ...Array(6 - SIGN_IN_MAX).fill(429)]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("believe X-Forwarded-For only from a trusted proxy, up to the first address that is not one", async () => {
    const server = makeServer({ trustProxy: "10.0.0.0/8" });
    // Two clients behind the proxy, each limited on its own; a forged left-most entry changes nothing.
    for (let i = 0; i < SIGN_IN_MAX; i++) {
      expect((await guess(server, "10.0.0.2", `${randomAddress()}, 198.51.100.1, 10.0.0.9`)).status).toBe(
        401,
      );
    }
    expect((await guess(server, "10.0.0.2", `${randomAddress()}, 198.51.100.1`)).status).toBe(429);
    expect((await guess(server, "10.0.0.2", "198.51.100.2")).status).toBe(401);
    // An untrusted peer's header is ignored: its guesses are its own.
    for (let i = 0; i < SIGN_IN_MAX; i++) expect((await guess(server, "203.0.113.99")).status).toBe(401);
    expect((await guess(server, "203.0.113.99", "198.51.100.3")).status).toBe(429);
  });

  it("record the client address, not a forwarded one, on the session", async () => {
    const server = makeServer();
    const signedIn = await server.handleAuth(
      authRequest(
        "/sign-in/email",
        { email: "owner@example.com", password: PASSWORD },
        { "x-forwarded-for": "6.6.6.6" },
      ),
      { peerAddress: "192.0.2.55" },
    );
    expect(signedIn.status).toBe(200);
    const { token } = (await signedIn.json()) as { token: string };
    const session = await h.db.prisma.session.findFirstOrThrow({ where: { token } });
    expect(session.ipAddress).toBe("192.0.2.55");
  });

  it("throttle sign-ups per peer", async () => {
    const server = makeServer();
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_UP_MAX + 2; i++) {
      const res = await server.handleAuth(
        authRequest(
          "/sign-up/email",
          { email: `mass-${i}@example.com`, password: PASSWORD, name: "Mass" },
          {
            "x-forwarded-for": randomAddress(),
          },
        ),
        { peerAddress: "203.0.113.50" },
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(SIGN_UP_MAX).fill(200), 429, 429]);
    expect(await h.db.prisma.user.count({ where: { email: { startsWith: "mass-" } } })).toBe(SIGN_UP_MAX);
  });
});

describe("organizations per user", () => {
  const create = (server: ApiServer, session: Session, name: string) =>
    server.handleAuth(
      authRequest(
        "/organization/create",
        { name, slug: `${name}-${randomBytes(3).toString("hex")}` },
        {},
        session.cookie,
      ),
      { peerAddress: "192.0.2.10" },
    );

  it("limits how many one user owns (the sign-up's included), refused 403 naming the limit", async () => {
    const server = makeServer({ maxOrganizationsPerUser: 3 });
    const founder = await signUp(server, "founder@example.com", "Founder");
    expect((await create(server, founder, "second")).status).toBe(200);
    expect((await create(server, founder, "third")).status).toBe(200);
    const refused = await create(server, founder, "fourth");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "ORGANIZATION_LIMIT" });
    expect(await h.db.prisma.member.count({ where: { userId: founder.userId, role: "owner" } })).toBe(3);
  });

  it("holds the limit against one user's parallel creations", async () => {
    const server = makeServer({ maxOrganizationsPerUser: 3 });
    const racer = await signUp(server, "racer@example.com", "Racer");
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(server, racer, `race-${i}`).then((r) => r.status)),
    );
    expect(answers.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(
      answers.every((status) => [200, 403, 409].includes(status)),
      answers.join(),
    ).toBe(true);
    expect(
      await h.db.prisma.member.count({ where: { userId: racer.userId, role: "owner" } }),
    ).toBeLessThanOrEqual(3);
    // Once they are done, the count alone decides.
    while ((await h.db.prisma.member.count({ where: { userId: racer.userId, role: "owner" } })) < 3) {
      expect([200, 409]).toContain((await create(server, racer, "fill")).status);
    }
    expect((await create(server, racer, "over")).status).toBe(403);
  });

  it("limits how fast one user creates them, per hour", async () => {
    const server = makeServer({ maxOrganizationsPerUser: 100 });
    const busy = await signUp(server, "busy@example.com", "Busy");
    for (let i = 0; i < ORGANIZATION_CREATIONS_PER_HOUR; i++) {
      expect((await create(server, busy, `busy-${i}`)).status).toBe(200);
    }
    const refused = await create(server, busy, "one-too-many");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Someone else is not held up by it.
    const other = await signUp(server, "other@example.com", "Other");
    expect((await create(server, other, "others")).status).toBe(200);
    clock.advance(3_600_000);
    expect((await create(server, busy, "next-hour")).status).toBe(200);
  });
});
