import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBatch, encodeRecordBatch, type PartitionLog, readTxnMarker } from "../src/index";
import { batchesIn, codeOf, kv, openLog, TestClock, tempDir, text } from "./helpers";

const compact = { "cleanup.policy": "compact" };

/** `count` records of producer `pid` in its transaction, from sequence `seq`. */
function txnAppend(log: PartitionLog, pid: number, seq: number, tag: string, count = 1, epoch = 0) {
  const records = Array.from({ length: count }, (_, i) => kv(`${tag}${i}`, `${tag}-v${i}`));
  return log.append(records, {
    producer: { producerId: pid, producerEpoch: epoch, baseSequence: seq },
    transactional: true,
  });
}

function marker(pid: number, commit: boolean, extra: { epoch?: number; coordinatorEpoch?: number } = {}) {
  return {
    producerId: pid,
    producerEpoch: extra.epoch ?? 0,
    coordinatorEpoch: extra.coordinatorEpoch ?? 0,
    commit,
    timestampMs: 1_700_000_000_000,
  };
}

/** Every batch header (and marker) in the stored bytes from `from`, uncommitted. */
async function batchesFrom(log: PartitionLog, from: number) {
  const { bytes } = await log.readBatches(from, { maxBytes: 64 << 20 });
  return batchesIn(bytes).map(
    ({
      header,
      bytes: batch,
    }): { baseOffset: number; control: boolean; transactional: boolean; commit?: boolean } => {
      const entry = {
        baseOffset: header.baseOffset,
        control: header.isControl,
        transactional: header.isTransactional,
      };
      return header.isControl ? { ...entry, commit: readTxnMarker(batch, 0).commit } : entry;
    },
  );
}

async function keysRead(log: PartitionLog, isolation?: "read_committed" | "read_uncommitted") {
  const records = await log.read(log.logStartOffset, {
    maxBytes: 64 << 20,
    ...(isolation && { isolation }),
  });
  return records.map((r) => `${text(r.key)}@${r.offset}`);
}

describe("transactions in the log", () => {
  it("1. an open transaction bounds the LSO; COMMIT makes its records readable, ABORT never does", async () => {
    const log = await openLog({ config: compact });
    await log.append([kv("plain", "p")]);
    expect(log.lastStableOffset).toBe(1);
    await txnAppend(log, 7, 0, "a", 2); // 1, 2
    await txnAppend(log, 8, 0, "b", 1); // 3
    expect(log.lastStableOffset).toBe(1);
    expect(log.openTransactions()).toEqual([
      { producerId: 7, producerEpoch: 0, firstOffset: 1 },
      { producerId: 8, producerEpoch: 0, firstOffset: 3 },
    ]);
    expect(await keysRead(log)).toEqual(["plain@0"]);
    expect(await keysRead(log, "read_uncommitted")).toEqual(["plain@0", "a0@1", "a1@2", "b0@3"]);
    const commit = await log.appendTxnMarker(marker(7, true));
    expect(commit).toEqual({ offset: 4, closedTransaction: true });
    expect(log.lastStableOffset).toBe(3);
    expect(await keysRead(log)).toEqual(["plain@0", "a0@1", "a1@2"]);
    const abort = await log.appendTxnMarker(marker(8, false));
    expect(abort).toEqual({ offset: 5, closedTransaction: true });
    expect(log.lastStableOffset).toBe(6);
    expect(log.openTransactions()).toEqual([]);
    // read_committed records: the aborted record and both markers are left out.
    expect(await keysRead(log)).toEqual(["plain@0", "a0@1", "a1@2"]);
    // read_uncommitted records: the aborted data shows, markers never do.
    expect(await keysRead(log, "read_uncommitted")).toEqual(["plain@0", "a0@1", "a1@2", "b0@3"]);
    const stored = await batchesFrom(log, 0);
    expect(stored.filter((b) => b.control)).toEqual([
      { baseOffset: 4, control: true, transactional: true, commit: true },
      { baseOffset: 5, control: true, transactional: true, commit: false },
    ]);
  });

  it("2. readBatches read_committed stops at the LSO and names the aborted transactions it overlaps", async () => {
    const log = await openLog({ config: compact });
    await txnAppend(log, 1, 0, "x", 3); // 0-2
    await log.appendTxnMarker(marker(1, false)); // 3
    await txnAppend(log, 2, 0, "y", 1); // 4, open
    const committed = await log.readBatches(0, { isolation: "read_committed" });
    expect(committed.nextOffset).toBe(4);
    expect(committed.abortedTransactions).toEqual([
      { producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 },
    ]);
    const uncommitted = await log.readBatches(0);
    expect(uncommitted.nextOffset).toBe(5);
    expect(uncommitted.abortedTransactions).toBeUndefined();
    // Reading from past the aborted transaction: it is not named.
    const after = await log.readBatches(4, { isolation: "read_committed" });
    expect(after.bytes.length).toBe(0);
    expect(after.nextOffset).toBe(4);
    expect(after.abortedTransactions).toEqual([]);
    expect(log.abortedTransactions(0, 5)).toEqual([
      { producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 },
    ]);
    expect(log.abortedTransactions(4, 5)).toEqual([]);
  });

  it("3. fencing: an older producer epoch or coordinator epoch is refused and nothing is written", async () => {
    const log = await openLog({ config: compact });
    await txnAppend(log, 5, 0, "a", 1, 2);
    const end = log.logEndOffset;
    expect(await codeOf(log.appendTxnMarker(marker(5, true, { epoch: 1 })))).toBe("INVALID_PRODUCER_EPOCH");
    await log.appendTxnMarker(marker(5, false, { epoch: 3, coordinatorEpoch: 4 }));
    expect(await codeOf(log.appendTxnMarker(marker(5, true, { epoch: 3, coordinatorEpoch: 3 })))).toBe(
      "TRANSACTION_COORDINATOR_FENCED",
    );
    // The bumped epoch fences the zombie's data too.
    expect(await codeOf(txnAppend(log, 5, 1, "z", 1, 2))).toBe("INVALID_PRODUCER_EPOCH");
    expect(log.logEndOffset).toBe(end + 1);
    expect(await keysRead(log, "read_uncommitted")).toEqual(["a0@0"]);
    expect(log.abortedTransactions(0, 10)).toEqual([
      { producerId: 5, firstOffset: 0, lastOffset: 1, lastStableOffset: 2 },
    ]);
  });

  it("4. a marker with no open transaction is written harmlessly; a retried one too", async () => {
    const log = await openLog({ config: compact });
    expect(await log.appendTxnMarker(marker(9, true))).toEqual({ offset: 0, closedTransaction: false });
    await txnAppend(log, 9, 0, "a", 1);
    expect(await log.appendTxnMarker(marker(9, false))).toEqual({ offset: 2, closedTransaction: true });
    expect(await log.appendTxnMarker(marker(9, false))).toEqual({ offset: 3, closedTransaction: false });
    expect(log.abortedTransactions(0, 10)).toEqual([
      { producerId: 9, firstOffset: 1, lastOffset: 2, lastStableOffset: 3 },
    ]);
    expect(log.lastStableOffset).toBe(4);
  });

  it("5. refusals: non-transactional writes of a producer in a transaction, client control batches, bad marker fields", async () => {
    const log = await openLog({ config: compact });
    await txnAppend(log, 3, 0, "a", 1);
    expect(
      await codeOf(
        log.append([kv("k", "v")], { producer: { producerId: 3, producerEpoch: 0, baseSequence: 1 } }),
      ),
    ).toBe("INVALID_TXN_STATE");
    const control = encodeRecordBatch([kv("k", "v")], {
      baseOffset: 0,
      appendTimeMs: 1,
      producer: {
        producerId: 3,
        producerEpoch: 0,
        baseSequence: 1,
        partitionLeaderEpoch: -1,
        attributes: 0x30,
      },
    });
    expect(await codeOf(log.appendBatch(control))).toBe("INVALID_TXN_STATE");
    const noProducer = encodeRecordBatch([kv("k", "v")], {
      baseOffset: 0,
      appendTimeMs: 1,
      producer: {
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        partitionLeaderEpoch: -1,
        attributes: 0x10,
      },
    });
    expect(await codeOf(log.appendBatch(noProducer))).toBe("INVALID_RECORD");
    expect(await codeOf(log.append([kv("k", "v")], { transactional: true }))).toBe("INVALID_RECORD");
    expect(await codeOf(log.appendTxnMarker({ ...marker(3, true), coordinatorEpoch: -1 }))).toBe(
      "INVALID_TXN_STATE",
    );
    expect(await codeOf(log.appendTxnMarker({ ...marker(3, true), producerEpoch: 40000 }))).toBe(
      "INVALID_RECORD",
    );
    expect(log.logEndOffset).toBe(1);
    // A client's transactional batch as sent is taken: it extends the open transaction.
    const asSent = encodeRecordBatch([kv("b", "v")], {
      baseOffset: 0,
      appendTimeMs: 1_700_000_000_000,
      producer: {
        producerId: 3,
        producerEpoch: 0,
        baseSequence: 1,
        partitionLeaderEpoch: -1,
        attributes: 0x10,
      },
    });
    expect(await log.appendBatch(asSent)).toEqual({ baseOffset: 1, lastOffset: 1 });
    expect(log.openTransactions()).toEqual([{ producerId: 3, producerEpoch: 0, firstOffset: 0 }]);
  });

  it("6. reopen (clean and after a crash) rebuilds the open transactions, the LSO and the aborted index", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const log = await openLog({ dir, clock, config: { ...compact, "segment.bytes": 400 } });
    for (let round = 0; round < 6; round++) {
      await txnAppend(log, 1, round * 2, `r${round}a`, 2);
      await txnAppend(log, 2, round, `r${round}b`, 1);
      await log.appendTxnMarker(marker(1, round % 2 === 0));
      await log.appendTxnMarker(marker(2, round % 3 === 0));
    }
    await txnAppend(log, 3, 0, "open", 2);
    expect(log.segments().length).toBeGreaterThan(3);
    const expected = {
      lso: log.lastStableOffset,
      open: log.openTransactions(),
      aborted: log.abortedTransactions(0, log.logEndOffset),
      committed: await keysRead(log),
      entries: log.producerState.entries(),
    };
    // A crash image: the files as they are now (appends and markers were fsynced).
    const crashed = tempDir();
    for (const name of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, name), path.join(crashed, name));
    await log.close();
    for (const reopenDir of [dir, crashed]) {
      const reopened = await openLog({ dir: reopenDir, clock, config: { ...compact, "segment.bytes": 400 } });
      expect(reopened.lastStableOffset).toBe(expected.lso);
      expect(reopened.openTransactions()).toEqual(expected.open);
      expect(reopened.abortedTransactions(0, reopened.logEndOffset)).toEqual(expected.aborted);
      expect(await keysRead(reopened)).toEqual(expected.committed);
      expect(reopened.producerState.entries()).toEqual(expected.entries);
      await reopened.close();
    }
    // Index files lost, the snapshot kept (a log rebuilt from object storage: the snapshot travels
    // with its segment, the index files do not): the snapshot carries the aborted transactions.
    for (const name of fs.readdirSync(dir)) {
      if (name.endsWith(".aborted-txns")) fs.rmSync(path.join(dir, name));
    }
    const seeded = await openLog({ dir, clock, config: { ...compact, "segment.bytes": 400 } });
    expect(seeded.producerRecovery.batchesReplayed).toBe(0);
    expect(seeded.abortedTransactions(0, seeded.logEndOffset)).toEqual(expected.aborted);
    expect(await keysRead(seeded)).toEqual(expected.committed);
    await seeded.close();
    // Index files lost: rebuilt from the log (no snapshot either: the whole log is replayed).
    for (const name of fs.readdirSync(crashed)) {
      if (/\.(aborted-txns|snapshot)$/.test(name)) fs.rmSync(path.join(crashed, name));
    }
    const rebuilt = await openLog({ dir: crashed, clock, config: { ...compact, "segment.bytes": 400 } });
    expect(rebuilt.abortedTransactions(0, rebuilt.logEndOffset)).toEqual(expected.aborted);
    expect(await keysRead(rebuilt)).toEqual(expected.committed);
  });

  it("7. a marker's batch decodes as Kafka's: one record, key version 0 + type, value version 0 + coordinator epoch", async () => {
    const log = await openLog({ config: compact });
    await txnAppend(log, 11, 0, "a", 1);
    await log.appendTxnMarker(marker(11, true, { coordinatorEpoch: 42 }));
    const { bytes } = await log.readBatches(1);
    const { header, records } = decodeBatch(bytes, 0);
    expect(header).toMatchObject({
      isControl: true,
      isTransactional: true,
      producerId: 11,
      baseSequence: -1,
    });
    expect(records).toHaveLength(1);
    expect(records[0]!.key).toEqual(Buffer.from([0, 0, 0, 1]));
    expect(records[0]!.value).toEqual(Buffer.from([0, 0, 0, 0, 0, 42]));
  });
});
