import { beforeAll, describe, expect, it } from "vitest";
import { provisionTenantKey, rest, trpc } from "./api-harness";
import { json, str } from "./record-envelopes";
import { useTenantWorld } from "./tenant-world";

// records.search's programmable filter: a regular expression and a JavaScript predicate run in a
// sandboxed thread, bounded per record, in total and in bytes read.
const h = useTenantWorld("record_filter", { topics: [{ name: "events", partitions: 3, configs: {} }] });
let otherKey: string;

interface Searched {
  records: { partition: number; offset: number; key: { data: string } | null }[];
  scanned: number;
  bytesScanned: number;
  positions: { partition: number; offset: number; logEndOffset: number }[];
  stoppedBy: string;
}

async function search(input: Record<string, unknown>, apiKey = h.key) {
  const answer = await trpc(h.server, { apiKey }, "query", "records.search", { topic: "events", ...input });
  return {
    status: answer.status,
    data: answer.body.result?.data as Searched,
    error: answer.body.error as { message: string; data?: Record<string, unknown> } | undefined,
  };
}

const keys = (found: Searched) => found.records.map((r) => r.key?.data).sort();

/** 90 records over three partitions: every seventh is a refund of 100 or more; one value defeats a naive regex engine. */
const RECORDS = Array.from({ length: 90 }, (_, i) => ({
  partition: i % 3,
  key: str(i % 7 === 0 ? `refund-${i}` : `order-${i}`),
  value: json({ n: i, amount: i % 7 === 0 ? 100 + i : i, kind: i % 7 === 0 ? "refund" : "order" }),
  headers: [{ key: "source", value: str(i % 2 === 0 ? "web" : "app") }],
  timestamp: 1_000 + i,
}));

beforeAll(async () => {
  otherKey = (await provisionTenantKey(h.server, "Other")).key;
  const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/events/records", {
    records: [
      ...RECORDS,
      { partition: 1, key: str("redos"), value: str(`${"a".repeat(40)}!`), timestamp: 5_000 },
    ],
  });
  expect(produced.status).toBe(200);
});

describe("records.search with a programmable filter", () => {
  it("a regular expression finds matching keys and header values across partitions", async () => {
    const refunds = await search({ filter: { regex: { pattern: "^refund-\\d+$", on: ["key"] } } });
    expect(refunds.status).toBe(200);
    const expected = RECORDS.filter((_, i) => i % 7 === 0).map((r) => r.key.data);
    expect(keys(refunds.data)).toEqual([...expected].sort());
    expect(new Set(refunds.data.records.map((r) => r.partition))).toEqual(new Set([0, 1, 2]));
    expect(refunds.data).toMatchObject({ scanned: 91, stoppedBy: "end" });
    expect(refunds.data.bytesScanned).toBeGreaterThan(91 * 10);
    const fromApp = await search({ filter: { regex: { pattern: "^APP$", flags: "i", on: ["headers"] } } });
    expect(fromApp.data.records).toHaveLength(45);
  });

  it("a JavaScript predicate sees the parsed value and headers, and combines with the regex", async () => {
    const big = await search({
      filter: {
        javascript:
          "return record.json?.kind === 'refund' && record.json.amount >= 150 && record.headers.source === 'web'",
      },
    });
    const expected = RECORDS.filter((_, i) => i % 7 === 0 && 100 + i >= 150 && i % 2 === 0).map(
      (r) => r.key.data,
    );
    expect(expected.length).toBeGreaterThan(1);
    expect(keys(big.data)).toEqual([...expected].sort());
    const both = await search({
      filter: { regex: { pattern: "refund", on: ["key"] }, javascript: "return record.partition === 2" },
    });
    expect(both.data.records.every((r) => r.partition === 2 && r.key?.data.startsWith("refund"))).toBe(true);
    expect(both.data.records.length).toBe(RECORDS.filter((_, i) => i % 7 === 0 && i % 3 === 2).length);
  });

  it("stops a predicate that never returns and answers 422, and the next search still works", async () => {
    const loop = await search({ filter: { javascript: "while (true) {}" } });
    expect(loop.status).toBe(422);
    expect(loop.error?.message).toMatch(/ran longer than 500 ms on partition \d offset \d+ and was stopped/);
    const regexBomb = await search({ filter: { regex: { pattern: "^(a+)+$", on: ["value"] } } });
    expect(regexBomb.status).toBe(422);
    expect(regexBomb.error?.message).toMatch(/ran longer than 500 ms on partition 1/);
    const after = await search({ filter: { javascript: "return record.offset === 0" } });
    expect(after.status).toBe(200);
    expect(after.data.records).toHaveLength(3);
  });

  it("gives the predicate nothing but the record: no process, no require, no code from strings", async () => {
    const attempts = [
      ["return process.exit(1)", /process is not defined/],
      ["return require('node:fs')", /require is not defined/],
      ["return this.constructor.constructor('return process')()", /Code generation from strings disallowed/],
      [
        "return record.constructor.constructor('return process')()",
        /Code generation from strings disallowed/,
      ],
      ["return eval('1')", /Code generation from strings disallowed/],
      ["return typeof setTimeout === 'function' || typeof fetch === 'function'", null],
    ] as const;
    for (const [javascript, refusal] of attempts) {
      const answer = await search({ filter: { javascript } });
      if (refusal === null) {
        expect(answer.status, javascript).toBe(200);
        expect(answer.data.records, javascript).toEqual([]);
      } else {
        expect(answer.status, javascript).toBe(422);
        expect(answer.error?.message, javascript).toMatch(/The filter threw on partition \d offset \d+/);
        expect(answer.error?.message, javascript).toMatch(refusal);
      }
    }
  });

  it("stops a predicate that fills its heap", async () => {
    const hog = await search({
      filter: {
        javascript: "const a = []; for (;;) a.push(new Array(1e5).fill(record.offset)); return true",
      },
    });
    expect(hog.status).toBe(422);
    expect(hog.error?.message).toMatch(/used more than 64 MB|ran longer than 500 ms/);
  });

  it("refuses a filter that does not compile before reading anything", async () => {
    const syntax = await search({ filter: { javascript: "return (" } });
    expect(syntax.status).toBe(400);
    expect(syntax.error?.message).toMatch(/filter.javascript does not compile/);
    const badRegex = await search({ filter: { regex: { pattern: "(" } } });
    expect(badRegex.status).toBe(400);
    expect(badRegex.error?.message).toMatch(/filter.regex is not a regular expression/);
    expect((await search({ filter: { regex: { pattern: "a", flags: "g" } } })).status).toBe(400);
  });

  it("holds to its bytes and its time, and the positions continue from where it stopped", async () => {
    const bytes = await search({ byteLimit: 500, filter: { javascript: "return true" } });
    expect(bytes.data.stoppedBy).toBe("byteLimit");
    expect(bytes.data.bytesScanned).toBeGreaterThanOrEqual(500);
    expect(bytes.data.scanned).toBeLessThan(91);
    // Each record takes ~40 ms: a 300 ms search ends long before the 91 records' ~3.6 s.
    const slow = await search({
      timeLimitMs: 300,
      filter: { javascript: "const t = Date.now(); while (Date.now() - t < 40) {} return true" },
    });
    expect(slow.status).toBe(200);
    expect(slow.data.stoppedBy).toBe("timeLimit");
    expect(slow.data.scanned).toBeLessThan(91);
    const rest = await search({
      filter: { javascript: "return true" },
      start: {
        from: "offsets",
        offsets: slow.data.positions.map(({ partition, offset }) => ({ partition, offset })),
      },
    });
    expect(slow.data.records.length + rest.data.records.length).toBe(91);
  });

  it("is the caller's tenant's only", async () => {
    const other = await search({ filter: { javascript: "return true" } }, otherKey);
    expect(other.status).toBe(404);
  });
});
