import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaKey, endTxn, metricSample, plainKafkajs, RawKafka } from "./kafka-client";
import { type KafkaKey, useKafkaWorld } from "./kafka-world";
import { openControlPlane } from "./rest-call";
import { eventually } from "./test-topics";

// The transaction coordinator on raw frames, where every answer can be read exactly: the lease on
// a transactional id, producer ids and epochs, fencing, the tenant's timeout bound, offsets held
// until the transaction commits, the timeout on an injected clock, and tenant scoping. None of
// these needs a marker in a log: the transactions here carry offsets only (AddOffsetsToTxn).

const ORG = "org_txn_coord";
const OTHER = "org_txn_other";
const TOPIC = "txin";
const MAX_TIMEOUT_MS = 120_000;
const clock = new ManualClock(Date.parse("2026-12-07T12:00:00Z"));
let api: ReturnType<typeof openControlPlane>;

const world = useKafkaWorld({ name: "kafka-txn-coord" }, ORG, {
  topics: { [TOPIC]: 1 },
  tenants: { [OTHER]: { [TOPIC]: 1 } },
  worker: { leaseTtlMs: 1_500, clock },
  setup: async (h) => {
    await h.db.prisma.quota.create({
      data: {
        organizationId: ORG,
        maxPartitions: 100,
        maxStoredBytes: 1n << 30n,
        produceBytesPerSecond: 1 << 26,
        requestsPerSecond: 1000,
        maxTransactionTimeoutMs: MAX_TIMEOUT_MS,
      },
    });
  },
});
const otherKey = () => world.tenantKeys[OTHER]!;

beforeAll(() => {
  api = openControlPlane({ name: "txn-coord", prisma: world.h.db.prisma, dataPlane: world.h.client });
});

afterAll(async () => {
  await api?.close();
});

/**
 * Runs `body` on a connection logged in as each of `keys`, in order, and closes them however it ends
 * (a test's failed expectation must not leave its connections holding the transactional ids).
 */
async function withLogins<const K extends readonly KafkaKey[]>(
  keys: K,
  body: (...raws: { -readonly [I in keyof K]: RawKafka }) => Promise<void>,
): Promise<void> {
  const raws: RawKafka[] = [];
  try {
    for (const k of keys) raws.push(await RawKafka.login(world.worker.kafka!, k));
    await body(...(raws as { -readonly [I in keyof K]: RawKafka }));
  } finally {
    for (const raw of raws) raw.close();
  }
}

/** withLogins as the file's key, on one connection. */
const withLogin = (body: (raw: RawKafka) => Promise<void>) => withLogins([world.key], body);

async function initProducer(
  raw: RawKafka,
  transactionalId: string,
  timeoutMs = 60_000,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  const found = await raw.call(ApiKey.FindCoordinator, 3, { key: transactionalId, keyType: 1 });
  expect(found).toMatchObject({ errorCode: 0, nodeId: world.worker.kafka!.nodeId });
  const init = await raw.call(ApiKey.InitProducerId, 4, {
    transactionalId,
    transactionTimeoutMs: timeoutMs,
    producerId: -1n,
    producerEpoch: -1,
  });
  expect(init.errorCode).toBe(0);
  return { producerId: init.producerId, producerEpoch: init.producerEpoch };
}

/** AddOffsetsToTxn (v1 unless said) of the group to the producer's transaction: its error code. */
async function addOffsets(
  raw: RawKafka,
  transactionalId: string,
  producer: { producerId: bigint; producerEpoch: number },
  groupId: string,
  version = 1,
): Promise<number> {
  return (await raw.call(ApiKey.AddOffsetsToTxn, version, { transactionalId, ...producer, groupId }))
    .errorCode;
}

/** AddOffsetsToTxn then TxnOffsetCommit of `offset` for the group on partition 0: the error codes. */
async function commitOffsetInTxn(
  raw: RawKafka,
  transactionalId: string,
  producer: { producerId: bigint; producerEpoch: number },
  groupId: string,
  offset: bigint,
): Promise<{ added: number; committed: number }> {
  const added = await addOffsets(raw, transactionalId, producer, groupId);
  await raw.call(ApiKey.FindCoordinator, 3, { key: groupId, keyType: 0 });
  const committed = await raw.call(ApiKey.TxnOffsetCommit, 3, {
    transactionalId,
    groupId,
    ...producer,
    generationId: -1,
    memberId: "",
    groupInstanceId: null,
    topics: [
      {
        name: TOPIC,
        partitions: [
          { partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: "tx" },
        ],
      },
    ],
  });
  return { added, committed: committed.topics[0]!.partitions[0]!.errorCode };
}

async function fetchedOffset(raw: RawKafka, groupId: string): Promise<bigint> {
  const answer = await raw.call(ApiKey.OffsetFetch, 5, {
    groupId,
    topics: [{ name: TOPIC, partitionIndexes: [0] }],
  });
  return answer.topics[0]!.partitions[0]!.committedOffset;
}

async function state(organizationId: string, transactionalId: string) {
  return world.h.db.prisma.kafkaTransaction.findUnique({
    where: { organizationId_transactionalId: { organizationId, transactionalId } },
  });
}

describe("transaction coordinator", () => {
  it("FindCoordinator key type 1 claims the id here; InitProducerId issues a producer id at epoch 0, the next init bumps the epoch, and the older epoch is fenced per request version", async () => {
    await withLogin(async (raw) => {
      const first = await initProducer(raw, "tx-epochs");
      expect(first.producerEpoch).toBe(0);
      const second = await initProducer(raw, "tx-epochs");
      expect(second).toEqual({ producerId: first.producerId, producerEpoch: 1 });
      expect(await endTxn(raw, 1, "tx-epochs", first, true)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect(await endTxn(raw, 3, "tx-epochs", first, true)).toBe(ErrorCode.PRODUCER_FENCED);
      expect(await addOffsets(raw, "tx-epochs", first, "g-epochs", 2)).toBe(ErrorCode.PRODUCER_FENCED);
      // Nothing open: ending it is refused, as Kafka refuses EndTxn in Empty.
      expect(await endTxn(raw, 3, "tx-epochs", second, true)).toBe(ErrorCode.INVALID_TXN_STATE);
      expect((await state(ORG, "tx-epochs"))?.state).toBe("Empty");
    });
  });

  it("transaction.timeout.ms above the tenant's maximum (or not positive) is INVALID_TRANSACTION_TIMEOUT and issues nothing", async () => {
    await withLogin(async (raw) => {
      await raw.call(ApiKey.FindCoordinator, 3, { key: "tx-timeout-bound", keyType: 1 });
      for (const transactionTimeoutMs of [MAX_TIMEOUT_MS + 1, 0]) {
        const init = await raw.call(ApiKey.InitProducerId, 4, {
          transactionalId: "tx-timeout-bound",
          transactionTimeoutMs,
          producerId: -1n,
          producerEpoch: -1,
        });
        expect(init).toMatchObject({ errorCode: ErrorCode.INVALID_TRANSACTION_TIMEOUT, producerId: -1n });
      }
      expect((await state(ORG, "tx-timeout-bound"))?.producerId).toBe(-1n);
    });
  });

  it("TxnOffsetCommit's offsets stay out of the group until the transaction commits; an aborted transaction's never appear", async () => {
    await withLogin(async (raw) => {
      const producer = await initProducer(raw, "tx-offsets");
      expect(await commitOffsetInTxn(raw, "tx-offsets", producer, "g-offsets", 42n)).toEqual({
        added: 0,
        committed: 0,
      });
      expect(await fetchedOffset(raw, "g-offsets")).toBe(-1n);
      expect(
        await world.h.db.prisma.consumerGroupOffset.count({ where: { group: { name: "g-offsets" } } }),
      ).toBe(0);
      // KIP-447: a read_committed consumer asking for stable offsets is told to wait.
      const stable = await raw.call(ApiKey.OffsetFetch, 7, {
        groupId: "g-offsets",
        topics: [{ name: TOPIC, partitionIndexes: [0] }],
        requireStable: true,
      });
      expect(stable.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
      expect(await endTxn(raw, 1, "tx-offsets", producer, true)).toBe(0);
      expect(await fetchedOffset(raw, "g-offsets")).toBe(42n);
      const settled = await raw.call(ApiKey.OffsetFetch, 7, {
        groupId: "g-offsets",
        topics: [{ name: TOPIC, partitionIndexes: [0] }],
        requireStable: true,
      });
      expect(settled.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, committedOffset: 42n });
      // A retry of the commit that completed gets the same answer and changes nothing.
      expect(await endTxn(raw, 1, "tx-offsets", producer, true)).toBe(0);

      expect(await commitOffsetInTxn(raw, "tx-offsets", producer, "g-offsets", 99n)).toEqual({
        added: 0,
        committed: 0,
      });
      expect(await endTxn(raw, 1, "tx-offsets", producer, false)).toBe(0);
      expect(await fetchedOffset(raw, "g-offsets")).toBe(42n);
      expect((await state(ORG, "tx-offsets"))?.state).toBe("CompleteAbort");
    });
  });

  it("a second instance of a transactional id fences the first: its open transaction is aborted, its EndTxn is PRODUCER_FENCED, its offsets never land", async () => {
    await withLogins([world.key, world.key], async (zombie, successor) => {
      const old = await initProducer(zombie, "tx-zombie");
      expect((await commitOffsetInTxn(zombie, "tx-zombie", old, "g-zombie", 7n)).committed).toBe(0);
      const fresh = await initProducer(successor, "tx-zombie");
      expect(fresh.producerId).toBe(old.producerId);
      expect(fresh.producerEpoch).toBeGreaterThan(old.producerEpoch);
      expect((await state(ORG, "tx-zombie"))?.state).toBe("Empty");
      expect(await endTxn(zombie, 3, "tx-zombie", old, true)).toBe(ErrorCode.PRODUCER_FENCED);
      expect(await fetchedOffset(successor, "g-zombie")).toBe(-1n);
    });
  });

  it("an abandoned transaction is aborted once its timeout passes on the worker's clock, and its producer is fenced", async () => {
    await withLogin(async (raw) => {
      const producer = await initProducer(raw, "tx-abandoned", 30_000);
      expect((await commitOffsetInTxn(raw, "tx-abandoned", producer, "g-abandoned", 5n)).committed).toBe(0);
      expect((await state(ORG, "tx-abandoned"))?.state).toBe("Ongoing");
      clock.advance(29_000);
      // Not yet: two renewals (so one whole tick's timeout check) pass without aborting it.
      let renewals = 0;
      let seen = (await state(ORG, "tx-abandoned"))?.leaseExpiresAt?.getTime();
      await eventually("two ticks after the first advance", 15_000, async () => {
        const now = (await state(ORG, "tx-abandoned"))?.leaseExpiresAt?.getTime();
        if (now !== seen) renewals++;
        seen = now;
        return renewals >= 2 ? true : undefined;
      });
      expect((await state(ORG, "tx-abandoned"))?.state).toBe("Ongoing");
      // The gauges see it open, 29 s old on the worker's clock.
      const metrics = await (await fetch(`${world.worker.address}/metrics`)).text();
      expect(metricSample(metrics, `lastword_kafka_open_transactions{tenant="${ORG}"}`)).toBe(1);
      expect(
        metricSample(metrics, `lastword_kafka_oldest_open_transaction_age_seconds{tenant="${ORG}"}`),
      ).toBe(29);
      clock.advance(2_000);
      const aborted = await eventually("the timed-out transaction aborted", 15_000, async () => {
        const row = await state(ORG, "tx-abandoned");
        return row?.state === "CompleteAbort" ? row : undefined;
      });
      const after = await (await fetch(`${world.worker.address}/metrics`)).text();
      expect(after).not.toContain(`lastword_kafka_open_transactions{tenant="${ORG}"}`);
      expect(aborted.producerEpoch).toBe(producer.producerEpoch + 1);
      expect(await endTxn(raw, 3, "tx-abandoned", producer, true)).toBe(ErrorCode.PRODUCER_FENCED);
      expect(await fetchedOffset(raw, "g-abandoned")).toBe(-1n);
    });
  });

  it("transactional ids are per tenant: the same id in another tenant is another transaction, and one tenant's producer id means nothing to the other's", async () => {
    await withLogins([world.key, otherKey()], async (a, b) => {
      const mine = await initProducer(a, "tx-shared-name");
      const theirs = await initProducer(b, "tx-shared-name");
      expect(theirs.producerId).not.toBe(mine.producerId);
      expect(theirs.producerEpoch).toBe(0);
      const crossed = await addOffsets(b, "tx-shared-name", mine, "g-shared");
      expect(crossed).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      expect((await state(ORG, "tx-shared-name"))?.state).toBe("Empty");
      expect((await state(OTHER, "tx-shared-name"))?.producerId).toBe(theirs.producerId);
    });
  });

  it("a key without records:write may not use a transactional id; without groups:write it may not put offsets in a transaction", async () => {
    const readOnly = await createKafkaKey(world.h.db.prisma, ORG, [
      "topics:read",
      "records:read",
      "groups:read",
      "groups:write",
    ]);
    const noGroups = await createKafkaKey(world.h.db.prisma, ORG, [
      "topics:read",
      "records:read",
      "records:write",
      "groups:read",
    ]);
    await withLogins([readOnly, noGroups], async (r, w) => {
      const found = await r.call(ApiKey.FindCoordinator, 3, { key: "tx-rights", keyType: 1 });
      expect(found.errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      const init = await r.call(ApiKey.InitProducerId, 4, {
        transactionalId: "tx-rights",
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      });
      expect(init.errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      const producer = await initProducer(w, "tx-rights");
      expect(await addOffsets(w, "tx-rights", producer, "g")).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      expect((await state(ORG, "tx-rights"))?.state).toBe("Empty");
    });
  });

  it("the REST API lists the tenant's transactions (another tenant's never) and an operator's abort, audited, is carried out by the coordinator with the producer fenced", async () => {
    await withLogin(async (raw) => {
      const producer = await initProducer(raw, "tx-operator");
      expect((await commitOffsetInTxn(raw, "tx-operator", producer, "g-operator", 3n)).committed).toBe(0);
      const rest = (k: { secret: string }, method: string, path: string) =>
        api.rest(k.secret, method, path, method === "POST" ? {} : undefined);
      const listed = await rest(world.key, "GET", "/transactions");
      expect(listed.status).toBe(200);
      const mine = (listed.body.transactions as { transactionalId: string }[]).find(
        (t) => t.transactionalId === "tx-operator",
      );
      expect(mine).toMatchObject({
        state: "Ongoing",
        producerId: Number(producer.producerId),
        timeoutMs: 60_000,
        coordinator: world.worker.id,
        abortRequestedAt: null,
      });
      const theirs = await rest(otherKey(), "GET", "/transactions");
      expect(
        (theirs.body.transactions as { transactionalId: string }[]).map((t) => t.transactionalId),
      ).not.toContain("tx-operator");
      const stranger = await rest(otherKey(), "POST", "/transactions/tx-operator/abort");
      expect([stranger.status, stranger.body.code]).toEqual([404, "TRANSACTION_NOT_FOUND"]);
      expect((await state(ORG, "tx-operator"))?.abortRequestedAt).toBeNull();

      const aborted = await rest(world.key, "POST", "/transactions/tx-operator/abort");
      expect([aborted.status, aborted.body.abortRequested]).toEqual([200, true]);
      const audit = await world.h.db.prisma.auditEvent.findFirst({
        where: { organizationId: ORG, action: "transaction.abortRequested" },
      });
      expect(audit?.targetId).toBe("tx-operator");
      const done = await eventually("the coordinator aborts it", 15_000, async () => {
        const row = await state(ORG, "tx-operator");
        return row?.state === "CompleteAbort" ? row : undefined;
      });
      expect([done.producerEpoch, done.abortRequestedAt]).toEqual([producer.producerEpoch + 1, null]);
      expect(await endTxn(raw, 3, "tx-operator", producer, true)).toBe(ErrorCode.PRODUCER_FENCED);
      expect(await fetchedOffset(raw, "g-operator")).toBe(-1n);
      const again = await rest(world.key, "POST", "/transactions/tx-operator/abort");
      expect([again.status, again.body.code]).toEqual([409, "TRANSACTION_NOT_OPEN"]);
    });
  });

  it("a partition's segments answer shows its last stable offset and the transactions open in it, with their transactional id and start", async () => {
    const producer = plainKafkajs(world.bootstrap, world.key, {
      clientId: "tx-console",
    }).producer({ transactionalId: "tx-console", idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const txn = await producer.transaction();
      await txn.send({
        topic: TOPIC,
        messages: [
          { key: "a", value: "1" },
          { key: "b", value: "2" },
        ],
      });
      const path = `/topics/${TOPIC}/partitions/0/segments`;
      const open = await api.rest(world.key.secret, "GET", path);
      expect(open.status).toBe(200);
      const openTxns = open.body.openTransactions as {
        firstOffset: number;
        transactionalId: string | null;
      }[];
      expect(openTxns).toHaveLength(1);
      expect(openTxns[0]).toMatchObject({ transactionalId: "tx-console", startedAt: expect.any(String) });
      expect(open.body.lastStableOffset).toBe(openTxns[0]!.firstOffset);
      expect(open.body.logEndOffset as number).toBeGreaterThan(open.body.lastStableOffset as number);
      await txn.commit();
      const done = await api.rest(world.key.secret, "GET", path);
      expect(done.body.openTransactions).toEqual([]);
      expect(done.body.lastStableOffset).toBe(done.body.logEndOffset);
    } finally {
      await producer.disconnect();
    }
  });

  it("an id with no open transaction that no request needed for a lease TTL on the clock is let go; asking again claims it at a new epoch", async () => {
    await withLogin(async (raw) => {
      const first = await initProducer(raw, "tx-idle");
      const held = await state(ORG, "tx-idle");
      expect(held?.ownerWorkerId).toBe(world.worker.id);
      clock.advance(2_000);
      await eventually("the idle id let go", 15_000, async () =>
        (await state(ORG, "tx-idle"))?.ownerWorkerId === null ? true : undefined,
      );
      // Its producer's next request is told to find the coordinator again.
      const end = await raw.call(ApiKey.EndTxn, 3, { transactionalId: "tx-idle", ...first, committed: true });
      expect(end.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      const again = await initProducer(raw, "tx-idle");
      expect(again).toEqual({ producerId: first.producerId, producerEpoch: first.producerEpoch + 1 });
      expect((await state(ORG, "tx-idle"))?.epoch).toBeGreaterThan(held!.epoch);
    });
  });
});
