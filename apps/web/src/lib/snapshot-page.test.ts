import { describe, expect, it } from "vitest";
import { collectSnapshotPage, ndjsonLines } from "./snapshot-page";

const row = (offset: number) =>
  JSON.stringify({
    partition: 0,
    offset,
    timestamp: 1,
    key: { type: "string", data: `k${offset}` },
    value: { type: "string", data: "v" },
  });

async function* linesOf(lines: readonly string[], pulled: { count: number }): AsyncGenerator<string> {
  for (const line of lines) {
    pulled.count += 1;
    yield line;
  }
}

describe("collectSnapshotPage", () => {
  const all = [row(0), row(1), row(2), row(3), row(4), JSON.stringify({ end: true, offsets: [] })];

  it("returns the page after `skip` keys and stops at the first key past it", async () => {
    const pulled = { count: 0 };
    const page = await collectSnapshotPage(linesOf(all, pulled), 2, 2);
    expect(page.rows.map((r) => r.offset)).toEqual([2, 3]);
    expect(page.hasMore).toBe(true);
    expect(pulled.count).toBe(5);
  });

  it("says there is no more on the last page", async () => {
    const page = await collectSnapshotPage(linesOf(all, { count: 0 }), 4, 2);
    expect(page).toMatchObject({ hasMore: false });
    expect(page.rows.map((r) => r.offset)).toEqual([4]);
  });

  it("fails with the stream's problem when an error line arrives", async () => {
    const failed = [row(0), JSON.stringify({ error: { detail: "Partition 1 is unavailable." } })];
    await expect(collectSnapshotPage(linesOf(failed, { count: 0 }), 0, 10)).rejects.toThrow(
      "Partition 1 is unavailable.",
    );
  });
});

describe("ndjsonLines", () => {
  it("splits chunks on newlines whatever the chunk boundaries", async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of ['{"a":', '1}\n{"b"', ":2}\n", '{"c":3}'])
          controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const lines: string[] = [];
    for await (const line of ndjsonLines(body)) lines.push(line);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});
