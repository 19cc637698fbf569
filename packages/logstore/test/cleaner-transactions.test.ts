import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type PartitionLog, type RemoteSegmentSource, readTxnMarker } from "../src/index";
import { batchesIn, kv, openLog, TestClock, tempDir, text } from "./helpers";

// The cleaner's transaction rules (reference §2.10; Kafka's testBasicTransactionAwareCleaning,
// testCommitMarkerRemoval, testAbortMarkerRemoval, testLogCleanerRetainsProducerLastSequence):
// aborted data goes whatever its keys, markers stay until no batch of their transaction remains and
// then until their delete horizon passes (two passes), the last batch of an active producer stays,
// and nothing at or past the first offset of an open transaction is cleaned.

const DELETE_RETENTION_MS = 1_000;
const config = {
  "cleanup.policy": "compact",
  "delete.retention.ms": DELETE_RETENTION_MS,
  "segment.bytes": 100_000,
};

function txn(log: PartitionLog, pid: number, seq: number, pairs: [string, string][]) {
  return log.append(
    pairs.map(([k, v]) => kv(k, v)),
    { producer: { producerId: pid, producerEpoch: 0, baseSequence: seq }, transactional: true },
  );
}

function marker(log: PartitionLog, pid: number, commit: boolean) {
  return log.appendTxnMarker({
    producerId: pid,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    commit,
    timestampMs: log.clock.now(),
  });
}

/** Every stored batch, uncommitted: `k=v@offset` per record, `COMMIT(pid)@o` / `ABORT(pid)@o` per marker, `empty(pid)@o`. */
async function stored(log: PartitionLog): Promise<string[]> {
  const out: string[] = [];
  let from = log.logStartOffset;
  while (from < log.highWatermark) {
    const { bytes, nextOffset } = await log.readBatches(from, { maxBytes: 64 << 20 });
    if (bytes.length === 0) break;
    for (const { header, bytes: batch } of batchesIn(bytes)) {
      if (header.isControl) {
        const type = readTxnMarker(batch, 0).commit ? "COMMIT" : "ABORT";
        out.push(`${type}(${header.producerId})@${header.baseOffset}`);
      } else if (header.recordCount === 0) {
        out.push(`empty(${header.producerId})@${header.baseOffset}`);
      } else {
        const records = await log.read(header.baseOffset, {
          isolation: "read_uncommitted",
          maxRecords: header.recordCount,
          maxBytes: 64 << 20,
        });
        for (const r of records.filter((r) => r.offset <= header.lastOffset)) {
          out.push(`${text(r.key)}=${text(r.value)}@${r.offset}`);
        }
      }
    }
    from = nextOffset;
  }
  return out;
}

async function committed(log: PartitionLog): Promise<string[]> {
  return (await log.read(log.logStartOffset, { maxBytes: 64 << 20 })).map(
    (r) => `${text(r.key)}=${text(r.value)}@${r.offset}`,
  );
}

async function closeAndClean(log: PartitionLog) {
  await log.roll();
  return log.clean({ force: true });
}

describe("the cleaner's transaction rules", () => {
  it("1. aborted data goes whatever its keys, and never supersedes a committed value", async () => {
    const log = await openLog({ config, clock: new TestClock() });
    await log.append([kv("k", "old"), kv("j", "plain")]); // 0, 1
    await txn(log, 7, 0, [
      ["k", "aborted"],
      ["unique", "aborted-too"],
    ]); // 2, 3
    await marker(log, 7, false); // 4
    await txn(log, 8, 0, [["j", "new"]]); // 5
    await marker(log, 8, true); // 6
    const before = await committed(log);
    expect(before).toEqual(["k=old@0", "j=plain@1", "j=new@5"]);
    const result = await closeAndClean(log);
    expect(result.abortedRecordsRemoved).toBe(2);
    // k=old stays (the aborted k never counted), j=plain superseded by the committed j=new.
    expect(await committed(log)).toEqual(["k=old@0", "j=new@5"]);
    // Both markers stay this pass: their transactions' batches were met in it.
    expect(await stored(log)).toEqual(["k=old@0", "empty(7)@2", "ABORT(7)@4", "j=new@5", "COMMIT(8)@6"]);
  });

  it("2. a COMMIT marker stays while a batch of its transaction remains, then until its horizon (two passes)", async () => {
    const clock = new TestClock();
    const log = await openLog({ config, clock, producerIdExpirationMs: 10 });
    await txn(log, 5, 0, [["a", "1"]]); // 0
    await marker(log, 5, true); // 1
    await log.append([kv("a", "2"), kv("b", "x")]); // 2, 3 supersede the transaction's only record
    clock.advance(100); // producer 5 expires: its last batch need not stay
    await closeAndClean(log);
    // Pass 1 removed the data; the marker was met with its batch still read in this pass.
    expect(await stored(log)).toEqual(["COMMIT(5)@1", "a=2@2", "b=x@3"]);
    const second = await log.clean({ force: true });
    // Pass 2: no batch left — stamped with a horizon, still there.
    expect(second.markersRemoved).toBe(0);
    expect(await stored(log)).toEqual(["COMMIT(5)@1", "a=2@2", "b=x@3"]);
    expect(log.nextCleanDueAt()).toBe(clock.now() + DELETE_RETENTION_MS);
    clock.advance(DELETE_RETENTION_MS);
    const third = await log.clean({ force: true });
    expect(third.markersRemoved).toBe(1);
    expect(await stored(log)).toEqual(["a=2@2", "b=x@3"]);
  });

  it("3. an ABORT marker: its data goes in pass 1, the marker is stamped in pass 2 and removed after its horizon", async () => {
    const clock = new TestClock();
    const log = await openLog({ config, clock, producerIdExpirationMs: 10 });
    await txn(log, 9, 0, [
      ["x", "1"],
      ["y", "2"],
    ]); // 0, 1
    await marker(log, 9, false); // 2
    await log.append([kv("z", "3")]); // 3
    clock.advance(100);
    const first = await closeAndClean(log);
    expect(first.abortedRecordsRemoved).toBe(2);
    expect(await stored(log)).toEqual(["ABORT(9)@2", "z=3@3"]);
    await log.clean({ force: true });
    expect(await stored(log)).toEqual(["ABORT(9)@2", "z=3@3"]);
    clock.advance(DELETE_RETENTION_MS - 1);
    await log.clean({ force: true });
    expect(await stored(log)).toEqual(["ABORT(9)@2", "z=3@3"]);
    clock.advance(1);
    expect((await log.clean({ force: true })).markersRemoved).toBe(1);
    expect(await stored(log)).toEqual(["z=3@3"]);
    // The aborted transaction stays named for reads that overlap it (harmless once its data is gone).
    expect(await committed(log)).toEqual(["z=3@3"]);
  });

  it("4. the last batch of an active producer stays (emptied), and the state rebuilt from the log keeps its sequence", async () => {
    const dir = tempDir();
    const clock = new TestClock();
    const log = await openLog({ dir, config, clock });
    await txn(log, 3, 0, [["p", "1"]]); // 0
    await marker(log, 3, true); // 1
    await txn(log, 3, 1, [["q", "aborted"]]); // 2
    await marker(log, 3, false); // 3
    await log.append([kv("p", "2")]); // 4
    await closeAndClean(log);
    // p=1 superseded, q aborted: producer 3's last batch (offset 2) stays, emptied.
    expect(await stored(log)).toEqual(["COMMIT(3)@1", "empty(3)@2", "ABORT(3)@3", "p=2@4"]);
    const entry = log.producerState.entry(3)!;
    await log.close();
    for (const name of fs.readdirSync(dir)) if (name.endsWith(".snapshot")) fs.rmSync(path.join(dir, name));
    const reopened = await openLog({ dir, config, clock });
    expect(reopened.producerState.entry(3)!.batches.at(-1)).toEqual(entry.batches.at(-1));
    expect(reopened.openTransactions()).toEqual([]);
    // The next sequence is accepted, a duplicate of the last is recognised.
    expect(await txn(reopened, 3, 2, [["r", "1"]])).toEqual({ baseOffset: 5, lastOffset: 5 });
    expect(await txn(reopened, 3, 1, [["q", "aborted"]])).toEqual({
      baseOffset: 2,
      lastOffset: 2,
      duplicate: true,
    });
  });

  it("5. nothing at or past the first offset of an open transaction is cleaned", async () => {
    const log = await openLog({ config, clock: new TestClock() });
    await log.append([kv("k", "1")]); // 0
    await log.roll();
    await txn(log, 4, 0, [["t", "open"]]); // 1: open
    await log.append([kv("k", "2")]); // 2
    await log.roll();
    await log.append([kv("k", "3")]); // 3
    await log.roll();
    const result = await log.clean({ force: true });
    expect(result.firstUncleanableOffset).toBe(1);
    // k=1 is before the LSO and superseded by k=2 / k=3 past it: the map never read them, so it stays.
    expect(await stored(log)).toEqual(["k=1@0", "t=open@1", "k=2@2", "k=3@3"]);
    await marker(log, 4, true); // 4
    await log.roll();
    await log.clean({ force: true });
    expect(await stored(log)).toEqual(["t=open@1", "COMMIT(4)@4", "k=3@3"].sort(byOffset));
    expect(await committed(log)).toEqual(["t=open@1", "k=3@3"]);
  });

  it("6. on segments evicted to a remote tier the rules hold the same as on local disk", async () => {
    const tier = new MemoryTier();
    const clock = new TestClock();
    const local = await openLog({ config, clock, producerIdExpirationMs: 10 });
    const remote = await openLog({ config, clock, producerIdExpirationMs: 10, remote: tier });
    for (const log of [local, remote]) {
      await log.append([kv("k", "old")]); // 0
      await txn(log, 2, 0, [["k", "aborted"]]); // 1
      await marker(log, 2, false); // 2
      await log.roll();
      await txn(log, 6, 0, [["k", "committed"]]); // 3
      await marker(log, 6, true); // 4
      await log.roll();
      await log.append([kv("m", "x")]); // 5
      await log.roll();
    }
    for (const segment of remote.segments().filter((s) => !s.active)) {
      const ref = `seg-${segment.baseOffset}`;
      tier.objects.set(
        ref,
        fs.readFileSync(path.join(remote.dir, `${String(segment.baseOffset).padStart(20, "0")}.log`)),
      );
      expect(await remote.evictSegment(segment.baseOffset, ref)).toBe(true);
    }
    clock.advance(100);
    for (let pass = 0; pass < 3; pass++) {
      for (const log of [local, remote]) await log.clean({ force: true });
      clock.advance(DELETE_RETENTION_MS);
    }
    expect(await stored(remote)).toEqual(await stored(local));
    // The aborted k and its marker are gone; the COMMIT stays while its transaction's k remains.
    expect(await stored(local)).toEqual(["k=committed@3", "COMMIT(6)@4", "m=x@5"]);
    expect(await committed(remote)).toEqual(["k=committed@3", "m=x@5"]);
  });
});

function byOffset(a: string, b: string): number {
  return Number(a.split("@")[1]) - Number(b.split("@")[1]);
}

class MemoryTier implements RemoteSegmentSource {
  readonly objects = new Map<string, Buffer>();

  async fetch(ref: string): Promise<Uint8Array> {
    const bytes = this.objects.get(ref);
    if (!bytes) throw new Error(`no object ${ref}`);
    return bytes;
  }
}
