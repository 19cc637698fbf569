import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { createTestPartition, createTestTopic, eventually } from "./test-topics";
import { testScheduling, useWorkerHarness } from "./worker-harness";

const SECRET = "cleaner-test-secret";
const TICK_MS = 300;
const harness = useWorkerHarness({ name: "cleaner", secret: SECRET });
let worker: RunningWorker;

beforeAll(async () => {
  worker = await harness.startWorker({
    claimIntervalMs: 100,
    scheduling: testScheduling({ tickMs: TICK_MS, cleanerThreads: 2, cleanerBackoffBaseMs: 60_000 }),
  });
});

const text = (value: string) => Buffer.from(value);

/** Overwrites `keys` keys `rounds` times, one batch per round; small segments make most of it closed and dirty. */
async function overwrite(partitionId: string, keys: number, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const records = Array.from({ length: keys }, (_, k) => ({
      key: text(`key-${k}`),
      value: text(`round-${round}-${"x".repeat(40)}`),
    }));
    await harness.client.produce({ partitionId, records });
  }
}

async function latestRuns(partitionId: string) {
  return harness.db.prisma.cleanerRun.findMany({ where: { partitionId }, orderBy: { startedAt: "asc" } });
}

/** The partition's first run row that reached `status`, once one has. */
function runReaching(status: "completed" | "failed", partitionId: string, what: string, timeoutMs: number) {
  return eventually(what, timeoutMs, async () =>
    (await latestRuns(partitionId)).find((r) => r.status === status),
  );
}

describe("cleaner scheduling", () => {
  it("cleans a partition that crossed its dirty ratio on a scheduler tick, and records the run", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.bytes": "1024",
    });
    await overwrite(partitionId, 5, 12);
    // Nobody requests a pass: the scheduler's tick finds the ratio crossed (trigger "dirty-ratio").
    const run = await runReaching("completed", partitionId, "a completed pass", 10_000);
    expect(run.recordsRemoved).toBeGreaterThan(0);
    expect(Number(run.bytesRead)).toBeGreaterThan(Number(run.bytesWritten));
    expect(run.workerId).toBe(worker.id);
    expect(run.trigger).toBe("dirty-ratio");
    expect(run.dirtyRatioBefore).toBeGreaterThan(0.5);
    expect(run.dirtyRatioAfter).toBeLessThan(run.dirtyRatioBefore!);

    const { records } = await harness.client.fetch({ partitionId, offset: 0, limit: 1_000 });
    const latestByKey = new Map(records.map((r) => [r.key!.toString(), r.value!.toString()]));
    expect([...latestByKey.values()].every((v) => v.startsWith("round-11-"))).toBe(true);
    expect(records.length).toBeLessThan(60);

    const listing = await harness.client.segments({ partitionId });
    expect(listing.cleaner).not.toBeNull();
    expect(listing.segments.some((s) => s.state === "clean")).toBe(true);
    const stats = await eventually("stats saved", 2_000, async () => {
      const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
      const saved = row.stats as { lastCleanAt: string | null } | null;
      return saved?.lastCleanAt ? saved : undefined;
    });
    expect(stats.lastCleanAt).not.toBeNull();
  });

  it("compacts an idle partition once max.compaction.lag.ms (2 s) passes, with no further writes", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "max.compaction.lag.ms": "2000",
      "min.cleanable.dirty.ratio": "0.99",
    });
    await overwrite(partitionId, 3, 4);
    const size = async () =>
      (await harness.client.segments({ partitionId })).segments.reduce((sum, s) => sum + s.sizeBytes, 0);
    const before = await size();
    const run = await runReaching("completed", partitionId, "a max-lag pass", 6_000);
    expect(run.recordsRemoved).toBe(9);
    expect(run.trigger).toBe("max-compaction-lag");
    const { records } = await harness.client.fetch({ partitionId, offset: 0 });
    expect(records.map((r) => r.offset)).toEqual([9, 10, 11]);
    // What the run says it reclaimed is what the partition shrank by (no writes meanwhile), not
    // bytes read − written (which counts what the pass re-read).
    const shrank = before - (await size());
    expect(shrank).toBeGreaterThan(0);
    expect(Number(run.bytesBefore! - run.bytesAfter!)).toBe(shrank);
  });

  it("removes a tombstone after delete.retention.ms with no further writes", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.ms": "300",
      "delete.retention.ms": "1000",
      "min.cleanable.dirty.ratio": "0.01",
    });
    await harness.client.produce({ partitionId, records: [{ key: text("gone"), value: text("secret") }] });
    await harness.client.produce({ partitionId, records: [{ key: text("kept"), value: text("v") }] });
    await harness.client.produce({ partitionId, records: [{ key: text("gone"), value: null }] });
    await eventually("value removed, tombstone kept", 5_000, async () => {
      const { records } = await harness.client.fetch({ partitionId, offset: 0 });
      const gone = records.filter((r) => r.key?.toString() === "gone");
      return gone.length === 1 && gone[0]!.value === null ? true : undefined;
    });
    await eventually("tombstone removed after its horizon", 6_000, async () => {
      const { records } = await harness.client.fetch({ partitionId, offset: 0 });
      return records.some((r) => r.key?.toString() === "gone") ? undefined : records;
    });
    // The run row is finished after the swap a fetch can already see, so wait for it too.
    const removed = await eventually("the pass's run row records the tombstone", 3_000, async () => {
      const runs = await latestRuns(partitionId);
      return runs.every((r) => r.status !== "running")
        ? runs.reduce((sum, r) => sum + r.tombstonesRemoved, 0)
        : undefined;
    });
    expect(removed).toBe(1);
  });

  it("marks only the partition with a corrupt segment uncleanable; the others keep being cleaned", async () => {
    const configs = {
      "cleanup.policy": "compact",
      "segment.bytes": "1024",
      "min.cleanable.dirty.ratio": "0.99",
    };
    const topic = await createTestTopic(harness.db.prisma, { partitions: 2, configs });
    const [broken, healthy] = topic.partitionIds as [string, string];
    await overwrite(broken, 5, 12);
    await overwrite(healthy, 5, 12);
    await corruptFirstSegment(join(harness.dataDir, topic.organizationId, topic.topicId, "0"));
    await harness.client.requestClean({ partitionId: broken });
    await harness.client.requestClean({ partitionId: healthy });

    const failed = await runReaching("failed", broken, "the broken partition's failed run", 5_000);
    expect(failed.error).toMatch(/corrupt|crc/i);
    await runReaching("completed", healthy, "the healthy partition cleaned", 5_000);
    const listing = await harness.client.segments({ partitionId: broken });
    expect(listing.cleaner?.uncleanable).toMatchObject({ failures: 1, held: false });
    await eventually("uncleanable in metrics", 3_000, async () => {
      const metrics = await (await fetch(`${worker.address}/metrics`)).text();
      return /lastword_log_cleaner_uncleanable_partitions_count 1\b/.test(metrics) ? metrics : undefined;
    });
    // The metric moves when the pass fails; the stats row only at the next tick's report.
    const uncleanable = await eventually("uncleanable in the partition's stats", 3_000, async () => {
      const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: broken } });
      return (row.stats as { uncleanable: { error: string } | null } | null)?.uncleanable ?? undefined;
    });
    expect(uncleanable.error).toMatch(/corrupt|crc/i);
  });

  it("serves Kafka's cleaner metrics and data-plane latencies on /metrics", async () => {
    const body = await (await fetch(`${worker.address}/metrics`)).text();
    for (const name of [
      "lastword_log_cleaner_max_dirty_percent",
      "lastword_log_cleaner_time_since_last_run_ms",
      "lastword_log_cleaner_max_clean_time_secs",
      "lastword_log_cleaner_max_buffer_utilization_percent",
      "lastword_log_cleaner_cleaner_recopy_percent",
      "lastword_log_cleaner_uncleanable_partitions_count",
      "lastword_log_cleaner_uncleanable_bytes",
      "lastword_log_cleaner_max_compaction_delay_secs",
      "lastword_dataplane_request_seconds_bucket",
    ]) {
      expect(body).toContain(name);
    }
    expect(body).toMatch(/lastword_dataplane_records_total\{op="produce"\} [1-9]/);
  });
});

/** Flips bytes in the middle of the oldest closed segment, past its first batch header. */
async function corruptFirstSegment(dir: string): Promise<void> {
  const logs = (await readdir(dir)).filter((name) => name.endsWith(".log")).sort();
  const file = await open(join(dir, logs[0]!), "r+");
  try {
    const { size } = await file.stat();
    await file.write(Buffer.alloc(16, 0xee), 0, 16, Math.floor(size / 2));
  } finally {
    await file.close();
  }
}
