import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PartitionLog } from "../src/index";
import { kv, openLog, TestClock, tempDir, text } from "./helpers";
import { bareSteps } from "./model-steps";

// Model-based: random plain appends, transactional appends of three producers, COMMIT/ABORT
// markers, rolls, cleaner passes, clock moves past the delete horizon, clean reopens and crash
// images (the files as they are, appends being fsynced). After every step the log must agree with
// the model: the LSO and open transactions; each key's latest committed value below the LSO (what
// compaction must keep); no aborted or open value ever read committed; and a reopen rebuilds the
// same producer state, open transactions and aborted-transaction index.

// Few keys: an aborted write is then often some key's latest, the case the offset map must not count.
const KEYS = ["a", "b", "c"];
const PRODUCERS = [1, 2, 3];
const DELETE_RETENTION_MS = 1_000;
const config = {
  "cleanup.policy": "compact",
  "segment.bytes": 600,
  "delete.retention.ms": DELETE_RETENTION_MS,
};

type Step =
  | { kind: "plain"; key: string }
  | { kind: "txn"; pid: number; keys: string[] }
  | { kind: "marker"; pid: number; commit: boolean }
  | { kind: "roll" }
  | { kind: "settle"; commits: boolean[] }
  | { kind: "clean" }
  | { kind: "advance" }
  | { kind: "reopen" }
  | { kind: "crash" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("plain" as const), key: fc.constantFrom(...KEYS) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("txn" as const),
      pid: fc.constantFrom(...PRODUCERS),
      keys: fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("marker" as const),
      pid: fc.constantFrom(...PRODUCERS),
      commit: fc.boolean(),
    }),
  },
  ...bareSteps({ roll: 2 }),
  {
    // Every open transaction decided, then a roll and a pass: the LSO moves and the pass reaches it.
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("settle" as const),
      commits: fc.array(fc.boolean(), { minLength: PRODUCERS.length, maxLength: PRODUCERS.length }),
    }),
  },
  ...bareSteps({ clean: 3, advance: 1, reopen: 1, crash: 1 }),
);

interface Written {
  key: string;
  value: string;
  offset: number;
}

class Model {
  /** Committed records (plain, or of committed transactions), in offset order. */
  committed: Written[] = [];
  /** Each producer's open transaction: first offset and its records. */
  open = new Map<number, { firstOffset: number; records: Written[] }>();
  aborted = new Set<string>();
  sequence = new Map<number, number>();
  values = 0;

  get lso(): number | null {
    const firsts = [...this.open.values()].map((t) => t.firstOffset);
    return firsts.length === 0 ? null : Math.min(...firsts);
  }

  /** Each key's latest committed value whose record lies below `end`. */
  latestBelow(end: number): Map<string, string> {
    const latest = new Map<string, string>();
    for (const r of this.committed) if (r.offset < end) latest.set(r.key, r.value);
    return latest;
  }
}

async function apply(log: PartitionLog, model: Model, s: Step): Promise<void> {
  if (s.kind === "plain") {
    const value = `p${model.values++}`;
    const { baseOffset } = await log.append([kv(s.key, value)]);
    model.committed.push({ key: s.key, value, offset: baseOffset });
  } else if (s.kind === "txn") {
    const values = s.keys.map(() => `t${s.pid}-${model.values++}`);
    const seq = model.sequence.get(s.pid) ?? 0;
    const { baseOffset } = await log.append(
      s.keys.map((k, i) => kv(k, values[i]!)),
      { producer: { producerId: s.pid, producerEpoch: 0, baseSequence: seq }, transactional: true },
    );
    model.sequence.set(s.pid, seq + s.keys.length);
    const txn = model.open.get(s.pid) ?? { firstOffset: baseOffset, records: [] };
    for (const [i, key] of s.keys.entries())
      txn.records.push({ key, value: values[i]!, offset: baseOffset + i });
    model.open.set(s.pid, txn);
  } else if (s.kind === "marker") {
    const result = await log.appendTxnMarker({
      producerId: s.pid,
      producerEpoch: 0,
      coordinatorEpoch: 0,
      commit: s.commit,
      timestampMs: log.clock.now(),
    });
    const txn = model.open.get(s.pid);
    expect(result.closedTransaction).toBe(txn !== undefined);
    model.open.delete(s.pid);
    if (txn && s.commit) {
      model.committed.push(...txn.records);
      model.committed.sort((a, b) => a.offset - b.offset);
    } else if (txn) for (const r of txn.records) model.aborted.add(r.value);
  } else if (s.kind === "roll") {
    await log.roll();
  } else if (s.kind === "settle") {
    for (const [i, pid] of PRODUCERS.entries()) {
      if (model.open.has(pid)) await apply(log, model, { kind: "marker", pid, commit: s.commits[i]! });
    }
    await log.roll();
    await log.clean({ force: true });
  } else if (s.kind === "clean") {
    await log.clean({ force: true });
  } else if (s.kind === "advance") {
    (log.clock as TestClock).advance(DELETE_RETENTION_MS);
  }
}

async function check(log: PartitionLog, model: Model): Promise<void> {
  const lso = model.lso ?? log.logEndOffset;
  expect(log.lastStableOffset).toBe(lso);
  expect(log.openTransactions().map((t) => [t.producerId, t.firstOffset])).toEqual(
    [...model.open].map(([pid, t]) => [pid, t.firstOffset]).sort((a, b) => a[1]! - b[1]!),
  );
  const records = await log.read(log.logStartOffset, { maxBytes: 64 << 20, maxRecords: 1e6 });
  const seen = new Map<string, string>();
  for (const r of records) {
    const value = text(r.value)!;
    expect(model.aborted.has(value), `aborted ${value} read committed`).toBe(false);
    expect(r.offset).toBeLessThan(lso);
    seen.set(text(r.key)!, value);
  }
  expect(seen).toEqual(model.latestBelow(lso));
}

describe("transactions, model-based", () => {
  it("reads, the LSO and reopens (clean and crash) agree with the model through cleaner passes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 60 }), async (steps) => {
        const clock = new TestClock();
        let dir = tempDir();
        let log = await openLog({ dir, clock, config });
        const model = new Model();
        for (const s of steps) {
          if (s.kind === "reopen" || s.kind === "crash") {
            const before = {
              entries: log.producerState.entries(),
              aborted: log.abortedTransactions(0, Number.MAX_SAFE_INTEGER),
            };
            if (s.kind === "crash") {
              const image = tempDir();
              for (const name of fs.readdirSync(dir))
                fs.copyFileSync(path.join(dir, name), path.join(image, name));
              await log.close();
              dir = image;
            } else await log.close();
            log = await openLog({ dir, clock, config });
            expect(log.producerState.entries()).toEqual(before.entries);
            expect(log.abortedTransactions(0, Number.MAX_SAFE_INTEGER)).toEqual(before.aborted);
          } else {
            await apply(log, model, s);
          }
          await check(log, model);
        }
        await log.close();
      }),
      { numRuns: 40 },
    );
  });
});
