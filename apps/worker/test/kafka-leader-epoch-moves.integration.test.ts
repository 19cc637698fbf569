import { ApiKey } from "@lastword/kafka-protocol";
import { OFF_LEADER_EPOCH, readBatchHeader } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, fetchBody, RawKafka } from "./kafka-client";
import { useInProcessMachines } from "./machines";
import { eventually } from "./test-topics";

// Leader epochs through several moves of a partition whose home is object storage: each owner on a
// disk of its own rebuilds the partition from the manifest. Every other owner leaves its records in
// shared commit objects; the next one consolidates them into an object of the partition's own,
// under its own lease epoch (as the chaos run saw). The history still says which epoch
// appended which offsets: OffsetForLeaderEpoch answers where each epoch really ended, and Fetch
// stamps every batch with the epoch that appended it, never with a later uploader's.
const LEASE_TTL_MS = 1_500;
const ORG = "org_epoch_moves";
const PER_OWNER = 5;
const OWNERS = 5;
const machines = useInProcessMachines({
  name: "kafka-epoch-moves",
  leaseTtlMs: LEASE_TTL_MS,
  objectTimings: { commitWindowMs: 10, tiering: { consolidateAfterMs: 0, intervalMs: 50, fullScanMs: 200 } },
});
/** An owner that consolidates nothing while it owns the partition (its rows stay in commit objects). */
const KEEPS_COMMIT_ROWS = { tiering: { consolidateAfterMs: 3_600_000, intervalMs: 50, fullScanMs: 200 } };
const { harness } = machines;

describe("leader epochs across moves between workers with disks of their own", () => {
  it("OffsetForLeaderEpoch and Fetch's batch epochs tell each owner's epoch where its records are, after its rows were re-uploaded by the next", async () => {
    const [partitionId] = await createNamedTopic(harness.db.prisma, ORG, "moves", 1);
    const key = await createKafkaKey(harness.db.prisma, ORG, CLIENT_SCOPES);
    const epochs: number[] = [];
    let last: Awaited<ReturnType<typeof machines.start>>["worker"] | null = null;
    for (let owner = 0; owner < OWNERS; owner++) {
      const consolidates = owner % 2 === 1;
      const { worker } = await machines.start(`owner-${owner}`, {
        kafka: { host: "127.0.0.1", port: 0 },
        claimIntervalMs: 100,
        ...(!consolidates && { objectTimings: KEEPS_COMMIT_ROWS }),
      });
      await eventually(`owner ${owner} serves the partition`, 8 * LEASE_TTL_MS, async () =>
        worker.ownedPartitions().includes(partitionId!) ? true : undefined,
      );
      const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId! } });
      epochs.push(row.leaseEpoch);
      for (let n = 0; n < PER_OWNER; n++) {
        const value = Buffer.from(`owner-${owner}-${n}`);
        await harness.client.produce({ partitionId: partitionId!, records: [{ key: value, value }] });
      }
      // It consolidates every row left in a commit object, its predecessor's too, under its epoch.
      if (consolidates) {
        await eventually(`owner ${owner} consolidated the rows`, 20_000, async () => {
          const rows = await machines.manifestRows(partitionId!);
          return rows.every((r) => !r.objectKey.startsWith("commit/")) ? true : undefined;
        });
        const rows = await machines.manifestRows(partitionId!);
        const predecessors = rows.find((r) => r.baseOffset === BigInt((owner - 1) * PER_OWNER));
        expect(predecessors?.epoch).toBe(row.leaseEpoch);
      }
      if (owner < OWNERS - 1) await worker.stop();
      else last = worker;
    }
    expect(new Set(epochs).size).toBe(OWNERS);

    const raw = await RawKafka.login(last!.kafka!, key);
    const current = epochs.at(-1)!;
    for (const [owner, epoch] of epochs.entries()) {
      const answer = await raw.call(ApiKey.OffsetForLeaderEpoch, 4, {
        replicaId: -1,
        topics: [
          { topic: "moves", partitions: [{ partition: 0, currentLeaderEpoch: current, leaderEpoch: epoch }] },
        ],
      });
      expect(answer.topics[0]!.partitions[0]!).toMatchObject({
        errorCode: 0,
        leaderEpoch: epoch,
        endOffset: BigInt((owner + 1) * PER_OWNER),
      });
    }
    const fetched = await raw.call(
      ApiKey.Fetch,
      11,
      fetchBody("moves", 0, 0, { currentLeaderEpoch: current }),
    );
    const records = fetched.responses[0]!.partitions[0]!.records!;
    const stamped: [number, number][] = [];
    for (let pos = 0; pos < records.length; ) {
      const header = readBatchHeader(records, pos);
      stamped.push([header.baseOffset, records.readInt32BE(pos + OFF_LEADER_EPOCH)]);
      pos += header.sizeBytes;
    }
    expect(stamped).toEqual(
      Array.from({ length: OWNERS * PER_OWNER }, (_, offset) => [
        offset,
        epochs[Math.floor(offset / PER_OWNER)],
      ]),
    );
    raw.close();

    // The history kept beside the manifest is the same one.
    const kept = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId! } });
    expect(kept.leaderEpochs).toEqual(
      epochs.map((epoch, owner) => ({ epoch, startOffset: owner * PER_OWNER })),
    );
    await last!.stop();
  });
});
