import { beforeAll, describe, expect, it } from "vitest";
import { provisionTenantKey, rest, trpc } from "./api-harness";
import { json, MERGE_BY_TIME_RECORDS, str } from "./record-envelopes";
import { useTenantWorld } from "./tenant-world";

// The console's message browser: one bounded, filtered scan over every partition of a topic.
const h = useTenantWorld("record_search", { topics: [{ name: "orders", partitions: 3, configs: {} }] });
let otherKey: string;

interface Searched {
  records: { partition: number; offset: number; timestamp: number; key: unknown; value: unknown }[];
  scanned: number;
  positions: { partition: number; offset: number; logEndOffset: number }[];
  stoppedBy: string;
}

async function search(input: Record<string, unknown>, apiKey = h.key) {
  const answer = await trpc(h.server, { apiKey }, "query", "records.search", { topic: "orders", ...input });
  return { status: answer.status, data: answer.body.result?.data as Searched, error: answer.body.error };
}

beforeAll(async () => {
  otherKey = (await provisionTenantKey(h.server, "Other")).key;
  // Timestamps set by hand: partition 2's records are older than partition 0's, so the merge shows.
  const records = [
    ...MERGE_BY_TIME_RECORDS,
    {
      partition: 2,
      key: str("order-3"),
      value: json({ customer: { id: "c-7" }, total: 5 }),
      timestamp: 4_000,
    },
    { partition: 0, key: str("order-4"), value: null, timestamp: 5_000 },
  ];
  const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/orders/records", { records });
  expect(produced.status).toBe(200);
});

describe("records.search", () => {
  it("merges every partition by timestamp and names each record's partition", async () => {
    const { status, data } = await search({});
    expect(status).toBe(200);
    expect(data.records.map((r) => [r.partition, r.offset, r.timestamp])).toEqual([
      [2, 0, 1_000],
      [1, 0, 2_000],
      [0, 0, 3_000],
      [2, 1, 4_000],
      [0, 1, 5_000],
    ]);
    expect(data).toMatchObject({ scanned: 5, stoppedBy: "end" });
    expect(data.positions).toEqual([
      { partition: 0, offset: 2, logStartOffset: 0, logEndOffset: 2 },
      { partition: 1, offset: 1, logStartOffset: 0, logEndOffset: 1 },
      { partition: 2, offset: 2, logStartOffset: 0, logEndOffset: 2 },
    ]);
  });

  it("filters on key, value and header text, case-insensitively, and says how many it scanned", async () => {
    const byValue = await search({ value: "order-1" });
    expect(byValue.data.records.map((r) => r.key)).toEqual([str("refund-1")]);
    expect(byValue.data.scanned).toBe(5);
    const byKey = await search({ key: "ORDER" });
    expect(byKey.data.records.map((r) => r.offset + 10 * r.partition)).toEqual([20, 0, 21, 1]);
    const byHeader = await search({ header: { key: "source", value: "BILLING" } });
    expect(byHeader.data.records.map((r) => r.key)).toEqual([str("refund-1")]);
    expect((await search({ header: { key: "source", value: "shipping" } })).data.records).toEqual([]);
    expect((await search({ header: { key: "Source" } })).data.records).toEqual([]);
  });

  it("matches a JSON path, with or without a value, and refuses a path it cannot run", async () => {
    const c7 = await search({ jsonPath: { path: "$.customer.id", equals: "c-7" } });
    expect(c7.data.records.map((r) => r.key)).toEqual([str("order-1"), str("order-3")]);
    const total40 = await search({ jsonPath: { path: "$.total", equals: "40" } });
    expect(total40.data.records.map((r) => r.key)).toEqual([str("order-2")]);
    const hasCustomer = await search({ jsonPath: { path: "$.customer" } });
    expect(hasCustomer.data.records).toHaveLength(3);
    const relative = await search({ jsonPath: { path: "customer.id" } });
    expect(relative.status).toBe(400);
    expect(relative.error).toMatchObject({ message: expect.stringContaining('must start at the root, "$"') });
    const script = await search({ jsonPath: { path: "$[?(@.total > 1)]" } });
    expect(script.status).toBe(400);
  });

  it("keeps to a time range and starts at a time or at an offset per partition", async () => {
    const until = await search({ start: { from: "timestamp", timestamp: 2_000 }, until: 4_000 });
    expect(until.data.records.map((r) => r.timestamp)).toEqual([2_000, 3_000, 4_000]);
    const seek = await search({
      partitions: [0, 2],
      start: {
        from: "offsets",
        offsets: [
          { partition: 0, offset: 1 },
          { partition: 2, offset: 0 },
        ],
      },
    });
    expect(seek.data.records.map((r) => [r.partition, r.offset])).toEqual([
      [2, 0],
      [2, 1],
      [0, 1],
    ]);
    const stray = await search({
      partitions: [0],
      start: { from: "offsets", offsets: [{ partition: 1, offset: 0 }] },
    });
    expect(stray.status).toBe(400);
    expect((await search({ partitions: [7] })).status).toBe(404);
  });

  it("stops at the scan limit or the match limit, and its positions continue without a gap or a repeat", async () => {
    const bounded = await search({ scanLimit: 3 });
    expect(bounded.data).toMatchObject({ scanned: 3, stoppedBy: "scanLimit" });
    const first = await search({ limit: 2 });
    expect(first.data.stoppedBy).toBe("limit");
    expect(first.data.records.map((r) => r.timestamp)).toEqual([1_000, 2_000]);
    const rest = await search({
      start: {
        from: "offsets",
        offsets: first.data.positions.map(({ partition, offset }) => ({ partition, offset })),
      },
    });
    expect(rest.data.records.map((r) => r.timestamp)).toEqual([3_000, 4_000, 5_000]);
  });

  it("from the latest records keeps the newest, and a follow-up sees only what came after", async () => {
    const latest = await search({ start: { from: "latest" }, limit: 2 });
    expect(latest.data.records.map((r) => r.timestamp)).toEqual([4_000, 5_000]);
    const positions = latest.data.positions.map(({ partition, offset }) => ({ partition, offset }));
    const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/orders/records", {
      records: [{ partition: 1, key: str("order-5"), value: str("late"), timestamp: 6_000 }],
    });
    expect(produced.status).toBe(200);
    const tail = await search({ start: { from: "offsets", offsets: positions } });
    expect(tail.data.records.map((r) => [r.partition, r.offset, r.key])).toEqual([[1, 1, str("order-5")]]);
  });

  it("is the caller's tenant's only", async () => {
    const other = await search({}, otherKey);
    expect(other.status).toBe(404);
  });
});
