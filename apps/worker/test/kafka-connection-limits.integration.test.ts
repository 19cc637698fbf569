import { DEFAULT_QUOTA, type TenantQuota } from "@lastword/api/tenant-quota";
import { decodeResponse, ErrorCode } from "@lastword/kafka-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { createKafkaKey, createNamedTopic, metricSample, RawKafka } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// Issue 27, point 3: no tenant, and no one who has not logged in, can take the listener's
// connection slots from another tenant. Clients on other loopback addresses (127.0.0.x) stand for
// other machines.

const ORG_A = "org_conn_a";
const ORG_B = "org_conn_b";
const ORG_C = "org_conn_c";
const LIMITS = {
  maxConnections: 60,
  maxUnauthenticated: 20,
  maxUnauthenticatedPerIp: 5,
  failedLoginsPerIp: 3,
  failedLoginsPerKey: 2,
  failedLoginDelayMs: 300,
  refusedLoginDelayMs: 200,
};
let h: WorkerHarness;
let worker: RunningWorker;
let idleWorker: RunningWorker;
let keyA: { id: string; secret: string };
/** Guessed at in the per-key-id test only, so no other test's failures count against it. */
let keyGuessed: { id: string; secret: string };
let keysB: { id: string; secret: string }[];
let keyC: { id: string; secret: string };

async function quota(organizationId: string, limits: Partial<TenantQuota>) {
  await h.db.prisma.quota.create({ data: { organizationId, ...DEFAULT_QUOTA, ...limits } });
}

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-conn-limits" });
  for (const org of [ORG_A, ORG_B, ORG_C]) await createNamedTopic(h.db.prisma, org, "t", 1);
  await quota(ORG_B, { maxConnectionsPerWorker: 3 });
  await quota(ORG_C, { connectionsPerSecond: 1 });
  const scopes = ["topics:read"] as const;
  keyA = await createKafkaKey(h.db.prisma, ORG_A, scopes, { scram: false });
  keyGuessed = await createKafkaKey(h.db.prisma, ORG_A, scopes, { scram: false });
  keysB = [
    await createKafkaKey(h.db.prisma, ORG_B, scopes, { scram: false }),
    await createKafkaKey(h.db.prisma, ORG_B, scopes, { scram: false }),
  ];
  keyC = await createKafkaKey(h.db.prisma, ORG_C, scopes, { scram: false });
  worker = await h.startWorker({ kafka: { host: "127.0.0.1", port: 0, limits: LIMITS } });
  idleWorker = await h.startWorker({ kafka: { host: "127.0.0.1", port: 0, limits: { idleMs: 2_000 } } });
});

afterAll(() => h?.close());

const open = (from = "127.0.0.1", w = worker) => RawKafka.open(w.kafka!.host, w.kafka!.port, from);

async function login(raw: RawKafka, key: { id: string; secret: string }) {
  await raw.request(17, 1, { mechanism: "PLAIN" });
  const frame = await raw.request(36, 1, { authBytes: Buffer.from(`\0${key.id}\0${key.secret}`) }, 0);
  return decodeResponse(36, 1, frame).body;
}

async function refusals(reason: string, tenant = ""): Promise<number> {
  const body = await (await fetch(`${worker.address}/metrics`)).text();
  return metricSample(
    body,
    `lastword_kafka_refused_connections_total{reason="${reason}",tenant="${tenant}"}`,
  );
}

describe("connections.max.idle.ms", () => {
  it("closes a connection that neither sends nor is answered for that long; one that keeps asking stays", async () => {
    const quiet = await open("127.0.0.1", idleWorker);
    expect((await login(quiet, keyA)).errorCode).toBe(0);
    const busy = await open("127.0.0.1", idleWorker);
    expect((await login(busy, keyA)).errorCode).toBe(0);
    const silentUnauthenticated = await open("127.0.0.1", idleWorker);
    // The busy one asks, one request after another, until the quiet one has been closed.
    let asks = 0;
    while (!quiet.closed) {
      await busy.request(18, 0, {});
      asks++;
    }
    await silentUnauthenticated.closedByServer();
    expect(asks).toBeGreaterThan(0);
    expect(busy.closed).toBe(false);
    busy.close();
  });
});

describe("connections not yet authenticated", () => {
  it("one address holds at most maxUnauthenticatedPerIp of them; another address still logs in", async () => {
    const held = await Promise.all(
      Array.from({ length: LIMITS.maxUnauthenticatedPerIp }, () => open("127.0.0.2")),
    );
    const before = await refusals("ip");
    const sixth = await open("127.0.0.2");
    await sixth.closedByServer();
    expect(await refusals("ip")).toBe(before + 1);
    const a = await open("127.0.0.1");
    expect((await login(a, keyA)).errorCode).toBe(0);
    // Once one logs in, it no longer counts against its address.
    expect((await login(held[0]!, keyA)).errorCode).toBe(0);
    const again = await open("127.0.0.2");
    expect((await login(again, keyA)).errorCode).toBe(0);
    for (const raw of [...held, a, again]) raw.close();
  });

  it("a reconnecting flood from many addresses, larger than the listener, never keeps tenant A from logging in", async () => {
    let flooding = true;
    let stopFlood!: () => void;
    const stopped = new Promise<void>((resolve) => (stopFlood = resolve));
    const flooders = Array.from({ length: 12 }, async (_, i) => {
      const from = `127.0.1.${i + 1}`;
      let opened = 0;
      // Each flooder keeps its address's 5 sockets open, reopening whichever the listener closes.
      const slot = async () => {
        while (flooding) {
          const raw = await open(from).catch(() => null);
          if (!raw) continue;
          opened++;
          await Promise.race([raw.closedByServer(), stopped]);
          raw.close();
        }
      };
      await Promise.all(Array.from({ length: LIMITS.maxUnauthenticatedPerIp }, slot));
      return opened;
    });
    try {
      await eventually("the flood has filled the listener", 20_000, async () =>
        (await refusals("evicted")) > 20 ? true : undefined,
      );
      for (let i = 0; i < 3; i++) {
        const a = await open("127.0.0.1");
        expect((await login(a, keyA)).errorCode).toBe(0);
        a.close();
      }
    } finally {
      flooding = false;
      stopFlood();
    }
    const opened = await Promise.all(flooders);
    expect(opened.reduce((x, y) => x + y, 0)).toBeGreaterThan(LIMITS.maxUnauthenticated);
  });
});

describe("a tenant's own connection quota", () => {
  it("maxConnectionsPerWorker caps the tenant over all its keys, naming the quota; another tenant is unaffected", async () => {
    const held: RawKafka[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = await open();
      expect((await login(raw, keysB[i % 2]!)).errorCode).toBe(0);
      held.push(raw);
    }
    const fourth = await open();
    const answer = await login(fourth, keysB[1]!);
    expect(answer.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(answer.errorMessage).toMatch(/maxConnectionsPerWorker 3/);
    await fourth.closedByServer();
    expect(await refusals("tenant", ORG_B)).toBe(1);
    const a = await open();
    expect((await login(a, keyA)).errorCode).toBe(0);
    for (const raw of [...held, a]) raw.close();
  });

  it("connectionsPerSecond limits how fast the tenant opens connections, naming the quota", async () => {
    const answers: { errorCode: number; errorMessage: string | null }[] = [];
    for (let i = 0; i < 8; i++) {
      const raw = await open();
      answers.push(await login(raw, keyC));
      raw.close();
    }
    const refused = answers.filter((a) => a.errorCode === ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.errorMessage).toMatch(/connectionsPerSecond/);
    expect(await refusals("tenant_rate", ORG_C)).toBe(refused.length);
  });
});

describe("failed SASL logins", () => {
  it("an address past failedLoginsPerIp is refused before its credentials are checked; other addresses log in", async () => {
    for (let i = 0; i < LIMITS.failedLoginsPerIp; i++) {
      const raw = await open("127.0.0.3");
      const answer = await login(raw, { id: keyA.id, secret: "wrong" });
      expect(answer.errorMessage).toMatch(/invalid API key id or secret/);
    }
    const right = await open("127.0.0.3");
    const answer = await login(right, keyA);
    expect(answer.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(answer.errorMessage).toMatch(/too many failed logins from this address.*failedLoginsPerIp/);
    const elsewhere = await open("127.0.0.1");
    expect((await login(elsewhere, keyA)).errorCode).toBe(0);
    elsewhere.close();
  });

  it("a key id past failedLoginsPerKey has its failures held back, while its right secret still logs in at once", async () => {
    const before = await refusals("login_throttled");
    // From different addresses, so no address reaches its own limit.
    for (let i = 0; i <= LIMITS.failedLoginsPerKey; i++) {
      const raw = await open(`127.0.0.${10 + i}`);
      expect((await login(raw, { id: keyGuessed.id, secret: `wrong-${i}` })).errorCode).toBe(
        ErrorCode.SASL_AUTHENTICATION_FAILED,
      );
    }
    expect(await refusals("login_throttled")).toBe(before + 1);
    const owner = await open("127.0.0.20");
    expect((await login(owner, keyGuessed)).errorCode).toBe(0);
    owner.close();
  });
});
