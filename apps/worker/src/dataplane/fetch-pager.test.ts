import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BatchRead, PartitionLog, readBatchHeader } from "@lastword/logstore";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatchReadingLog, FetchPager } from "./fetch-pager";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "lastword-fetch-pager-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Answer {
  records: { offset: number; value: string | null }[];
  nextOffset: number;
}

/** What the worker answered before paging: one bounded read of the whole answer. */
async function oneRead(log: PartitionLog, offset: number, limit: number, maxBytes: number): Promise<Answer> {
  const records = await log.read(offset, { maxRecords: limit, maxBytes });
  const last = records[records.length - 1];
  return {
    records: records.map((r) => ({ offset: r.offset, value: r.value?.toString("hex") ?? null })),
    nextOffset: last ? last.offset + 1 : Math.max(offset, log.logStartOffset),
  };
}

/** The same answer page by page, with every stored read the pager made. */
async function paged(
  log: BatchReadingLog,
  query: { offset: number; limit: number; maxBytes: number; endOffset: number; pageBytes: number },
) {
  const reads: Buffer[] = [];
  const counting: BatchReadingLog = {
    get logStartOffset() {
      return log.logStartOffset;
    },
    async readBatches(from, options): Promise<BatchRead> {
      const read = await log.readBatches(from, options);
      reads.push(Buffer.from(read.bytes));
      return read;
    },
  };
  const pager = new FetchPager(query);
  const answer: Answer = { records: [], nextOffset: 0 };
  let pages = 0;
  for (;;) {
    const page = await pager.next(counting);
    pages++;
    // Copied now: the records are views of the pager's buffer, which the next page overwrites.
    for (const r of page.records)
      answer.records.push({ offset: r.offset, value: r.value?.toString("hex") ?? null });
    if (page.done) break;
    expect(page.records.length).toBeGreaterThan(0);
  }
  answer.nextOffset = pager.nextOffset;
  return { answer, reads, pages, sent: pager.sent };
}

/** A delete-policy log of `count` one-record batches, value i filled with byte i. */
async function oneRecordBatches(
  name: string,
  count: number,
  valueBytes: number,
  config: Record<string, number> = {},
): Promise<PartitionLog> {
  const log = await PartitionLog.open({
    dir: join(root, name),
    config: { "cleanup.policy": "delete", ...config },
  });
  for (let i = 0; i < count; i++) await log.append([{ key: null, value: Buffer.alloc(valueBytes, i) }]);
  return log;
}

/** A pager whose limit and maxBytes never bind in these logs. */
function unbounded(offset: number, endOffset: number, pageBytes: number): FetchPager {
  return new FetchPager({ offset, limit: 100, maxBytes: 1 << 20, endOffset, pageBytes });
}

describe("FetchPager", () => {
  it("answers exactly what one bounded read answers (limit, maxBytes, gaps), reading at most a page or one batch at a time", async () => {
    const batch = fc.array(
      fc.record({
        key: fc.integer({ min: 0, max: 7 }),
        size: fc.integer({ min: 0, max: 3000 }),
        tombstone: fc.boolean(),
      }),
      { minLength: 1, maxLength: 6 },
    );
    const query = fc.record({
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      limit: fc.integer({ min: 1, max: 60 }),
      maxBytes: fc.oneof(fc.integer({ min: 1, max: 40_000 }), fc.constant(64 << 20)),
      pageBytes: fc.integer({ min: 1, max: 12_000 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(batch, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.array(query, { minLength: 1, maxLength: 8 }),
        async (batches, clean, queries) => {
          const log = await PartitionLog.open({
            dir: join(root, `run-${run++}`),
            config: {
              "cleanup.policy": "compact",
              "segment.bytes": 16_384,
              "min.cleanable.dirty.ratio": 0.01,
            },
          });
          try {
            for (const records of batches) {
              await log.append(
                records.map((r, i) => ({
                  key: Buffer.from(`k${r.key}`),
                  value: r.tombstone ? null : Buffer.alloc(r.size, i + 1),
                })),
              );
            }
            // Compaction leaves offset gaps, and batches whose last records are gone.
            if (clean) await log.clean({ force: true });
            for (const q of queries) {
              const span = log.logEndOffset - log.logStartOffset;
              const offset = log.logStartOffset + Math.floor(q.at * span);
              const expected = await oneRead(log, offset, q.limit, q.maxBytes);
              const got = await paged(log, { offset, ...q, endOffset: log.logEndOffset });
              expect(got.answer).toEqual(expected);
              expect(got.sent).toBe(expected.records.length);
              // Bounded memory: every read is at most a page, or a single batch larger than one.
              for (const bytes of got.reads) {
                if (bytes.length > q.pageBytes)
                  expect(readBatchHeader(bytes, 0).sizeBytes).toBe(bytes.length);
              }
            }
          } finally {
            await log.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("serves a record even when the first batch it reads has none left at the offset (compacted tail)", async () => {
    const log = await PartitionLog.open({ dir: join(root, "tail"), config: { "cleanup.policy": "compact" } });
    try {
      const value = Buffer.alloc(200, 1);
      await log.append(["a", "b", "c", "d"].map((k) => ({ key: Buffer.from(k), value })));
      await log.roll();
      await log.append(["c", "d"].map((k) => ({ key: Buffer.from(k), value })));
      await log.roll();
      await log.clean({ force: true });
      // Offsets 2 and 3 are gone but their batch (0..3) is still what holds offset 2.
      const expected = await oneRead(log, 2, 10, 1);
      expect(expected.records.map((r) => r.offset)).toEqual([4, 5]);
      const got = await paged(log, {
        offset: 2,
        limit: 10,
        maxBytes: 1,
        endOffset: log.logEndOffset,
        pageBytes: 64,
      });
      expect(got.answer).toEqual(expected);
    } finally {
      await log.close();
    }
  });

  it("sends nothing at or above the end offset it was given, even when the log grew since", async () => {
    const log = await oneRecordBatches("grown", 10, 500);
    try {
      const pager = unbounded(2, 10, 1024);
      const first = await pager.next(log);
      expect(first.records.map((r) => r.offset)).toEqual([2]);
      for (let i = 0; i < 5; i++) await log.append([{ key: null, value: Buffer.alloc(500, i) }]);
      const offsets: number[] = [];
      for (let page = await pager.next(log); ; page = await pager.next(log)) {
        offsets.push(...page.records.map((r) => r.offset));
        if (page.done) break;
      }
      expect(offsets).toEqual([3, 4, 5, 6, 7, 8, 9]);
      expect(pager.nextOffset).toBe(10);
    } finally {
      await log.close();
    }
  });

  it("reads the offset of the first page even at the end, so a fetch past the end is OFFSET_OUT_OF_RANGE", async () => {
    const log = await PartitionLog.open({ dir: join(root, "past-end") });
    try {
      await log.append([{ key: null, value: Buffer.from("v") }]);
      const atEnd = new FetchPager({ offset: 1, limit: 10, maxBytes: 100, endOffset: 1 });
      expect(await atEnd.next(log)).toEqual({ records: [], done: true });
      expect(atEnd.nextOffset).toBe(1);
      const past = new FetchPager({ offset: 2, limit: 10, maxBytes: 100, endOffset: 1 });
      await expect(past.next(log)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    } finally {
      await log.close();
    }
  });

  it("stops at the page retention removed, with nextOffset after the last record sent", async () => {
    const log = await oneRecordBatches("retention", 40, 1000, { "segment.bytes": 4096 });
    try {
      const pager = unbounded(0, 40, 3000);
      const first = await pager.next(log);
      const sent = first.records.map((r) => r.offset);
      expect(sent).toEqual([0, 1]);
      await log.deleteRecordsBefore(30);
      await log.applyRetention();
      await expect(pager.next(log)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
      expect(pager.nextOffset).toBe(2);
      expect(pager.logStartOffset).toBe(30);
    } finally {
      await log.close();
    }
  });
});
