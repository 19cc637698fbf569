import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { json, MERGE_BY_TIME_RECORDS, str } from "../packages/api/test/record-envelopes";
import { callTrpc, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import {
  messageCells,
  messageRow,
  messagesTable,
  searchMessages,
  shownOffsets,
} from "./message-browser-actions";
import { showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("orders");
const LONG_KEY = "customer-account-reference-0000000042-eu-west";
const BIG_VALUE = `big:${"x".repeat(2_000)}`;

/** Produces through the console's own tRPC endpoint, as the signed-in member. */
async function produceRecords(page: Page, records: unknown[]): Promise<void> {
  expect(await callTrpc(page, "records.produce", { topic: TOPIC, records })).toBe(200);
}

describe("message browser: every partition, filtered on the server, tailed, exported", () => {
  // Compacted, not delete-policy: the records are stamped in 1970, which time retention removes.
  const ui = useConsolePage({
    account: "Browser Person",
    topics: [{ name: TOPIC, partitions: 3, cleanupPolicy: "compact" }],
  });

  beforeAll(async () => {
    await ui.page.goto(`/topics/${TOPIC}?tab=messages`);
    await ui.page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    // Partition 2's first record is the oldest: a merge by time puts it first.
    await produceRecords(ui.page, [
      ...MERGE_BY_TIME_RECORDS,
      {
        partition: 2,
        key: str(LONG_KEY),
        value: json({ customer: { id: "c-7" }, total: 5 }),
        timestamp: 4_000,
      },
      { partition: 0, key: str("big-1"), value: str(BIG_VALUE), timestamp: 5_000 },
    ]);
  });

  it("merges all partitions by timestamp, names each record's partition and says what it scanned", async () => {
    const summary = await searchMessages(ui.page);
    expect(summary).toBe("Scanned 5 records to the end of the log; 5 shown.");
    const rows = await messagesTable(ui.page)
      .getByRole("row")
      .evaluateAll((trs) =>
        trs.slice(1).map((tr) => [tr.children[0]?.textContent, tr.children[1]?.textContent]),
      );
    expect(rows).toEqual([
      ["2", "0"],
      ["1", "0"],
      ["0", "0"],
      ["2", "1"],
      ["0", "1"],
    ]);
    await ui.page.getByLabel("Order by").selectOption("offset");
    expect(await shownOffsets(ui.page)).toEqual([0, 0, 0, 1, 1]);
    await ui.page.getByLabel("Order by").selectOption("timestamp");
    const widths = await saveScreenshotsAtWidths(ui.page, "message-browser");
    expect(widths).toEqual({ 1440: 0, 390: 0 });
  });

  it("finds a value substring across partitions, and filters on a header and a JSON path", async () => {
    expect(await searchMessages(ui.page, { fill: { "Value contains": "order-1" } })).toContain("1 shown");
    expect((await messageCells(ui.page, 0, 1))[2]).toBe("refund-1");
    expect(
      await searchMessages(ui.page, {
        fill: { "Value contains": "", "Header name": "source", "Header value contains": "BILLING" },
      }),
    ).toContain("1 shown");
    expect((await messageCells(ui.page, 0, 1))[4]).toBe("source: billing-service");
    await searchMessages(ui.page, {
      fill: {
        "Header name": "",
        "Header value contains": "",
        "JSON path": "$.customer.id",
        "JSON path equals": "c-7",
      },
    });
    expect(await shownOffsets(ui.page)).toEqual([0, 1]);
    expect((await messageCells(ui.page, 0, 0))[2]).toBe("order-1");
  });

  it("pretty-prints JSON at once, without searching again", async () => {
    const value = () => messageCells(ui.page, 0, 0).then((cells) => cells[3]);
    expect(await value()).toBe('{"customer":{"id":"c-7"},"total":12}');
    await ui.page.getByLabel("Pretty-print JSON").check();
    await expect.poll(value).toBe('{\n  "customer": {\n    "id": "c-7"\n  },\n  "total": 12\n}');
    await ui.page.getByLabel("Pretty-print JSON").uncheck();
  });

  it("refuses a JSON path that does not start at the root, in its own words, and keeps the form", async () => {
    const form = ui.page.getByRole("form", { name: "Browse messages" });
    await form.getByLabel("JSON path", { exact: true }).fill("customer.id");
    await form.getByRole("button", { name: "Search messages" }).click();
    await form.getByRole("alert").filter({ hasText: "A JSON path starts at the value's root, $" }).waitFor();
    expect(await form.getByLabel("JSON path", { exact: true }).inputValue()).toBe("customer.id");
    await form.getByLabel("JSON path", { exact: true }).fill("");
    await form.getByLabel("JSON path equals", { exact: true }).fill("");
  });

  it("seeks to an offset per partition and keeps to a time range", async () => {
    await searchMessages(ui.page, {
      select: { "Start from": "offset" },
      fill: { "Partition 0": "1", "Partition 1": "1", "Partition 2": "0" },
    });
    const rows = await messagesTable(ui.page)
      .getByRole("row")
      .evaluateAll((trs) =>
        trs.slice(1).map((tr) => `${tr.children[0]?.textContent}:${tr.children[1]?.textContent}`),
      );
    expect(rows).toEqual(["2:0", "2:1", "0:1"]);

    const local = (ms: number) =>
      ui.page.evaluate((at) => {
        const d = new Date(at);
        const two = (n: number) => String(n).padStart(2, "0");
        return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
      }, ms);
    await searchMessages(ui.page, {
      select: { "Start from": "timestamp" },
      fill: { "From time (local)": await local(2_000), "Until time (local)": await local(4_000) },
    });
    const stamps = await messagesTable(ui.page)
      .getByRole("row")
      .evaluateAll((trs) =>
        trs.slice(1).map((tr) => `${tr.children[0]?.textContent}:${tr.children[1]?.textContent}`),
      );
    expect(stamps).toEqual(["1:0", "0:0", "2:1"]);
    // The date inputs show their whole value, at a laptop's width and a phone's.
    for (const width of [1440, 390]) {
      await ui.page.setViewportSize({ width, height: 900 });
      const clipped = await ui.page
        .getByRole("form", { name: "Browse messages" })
        .locator('input[type="datetime-local"]')
        .evaluateAll((inputs) => inputs.map((i) => i.scrollWidth > i.clientWidth || i.clientWidth < 190));
      expect(clipped, `at ${width}px`).toEqual([false, false]);
    }
    await ui.page.setViewportSize({ width: 1280, height: 800 });
    await ui.page.getByLabel("Until time (local)").fill("");
    await ui.page.getByLabel("Start from").selectOption("earliest");
  });

  it("cuts a large value with Show all, and keeps a long key on one line", async () => {
    await searchMessages(ui.page);
    const bigCell = messageRow(ui.page, 1, 0).getByRole("cell").nth(3);
    expect(((await bigCell.textContent()) ?? "").length).toBeLessThan(600);
    await bigCell.getByRole("button", { name: "Show all 2,004 characters" }).click();
    await expect.poll(async () => (await bigCell.textContent())?.includes(BIG_VALUE)).toBe(true);

    const keyText = messageRow(ui.page, 1, 2).getByRole("cell").nth(2).locator("span.font-mono");
    const lines = await keyText.evaluate((el) => {
      const style = getComputedStyle(el);
      return {
        whiteSpace: style.whiteSpace,
        height: el.getBoundingClientRect().height,
        line: Number.parseFloat(style.lineHeight),
      };
    });
    expect(lines.whiteSpace).toBe("pre");
    expect(lines.height).toBeLessThan(lines.line * 1.5);
    expect(await keyText.textContent()).toBe(LONG_KEY);
  });

  it("exports the shown records as JSON lines and as CSV", async () => {
    await searchMessages(ui.page, { fill: { "Key contains": "order" } });
    const [jsonl] = await Promise.all([
      ui.page.waitForEvent("download"),
      ui.page.getByRole("button", { name: "Export JSON lines" }).click(),
    ]);
    expect(jsonl.suggestedFilename()).toBe(`${TOPIC}-records.jsonl`);
    const lines = (await readFile((await jsonl.path())!, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => [r.partition, r.offset, r.key.data])).toEqual([
      [2, 0, "order-2"],
      [0, 0, "order-1"],
    ]);
    const [csv] = await Promise.all([
      ui.page.waitForEvent("download"),
      ui.page.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    const text = await readFile((await csv.path())!, "utf8");
    expect(text.split("\r\n")).toEqual([
      "partition,offset,timestamp,key,value,tombstone,headers",
      `2,0,1970-01-01T00:00:01.000Z,order-2,"{""customer"":{""id"":""c-8""},""total"":40}",false,{}`,
      `0,0,1970-01-01T00:00:03.000Z,order-1,"{""customer"":{""id"":""c-7""},""total"":12}",false,{}`,
      // RFC 4180: every record, the last too, ends in CRLF (the one CSV writer, @lastword/api/csv).
      "",
    ]);
    await ui.page.getByLabel("Key contains").fill("");
  });

  it("follows new records live, with the filters it was started with", async () => {
    await showTab(ui.page, "Messages");
    await ui.page.getByLabel("Value contains", { exact: true }).fill("live");
    await ui.page.getByRole("button", { name: "Follow new records" }).click();
    await ui.page.getByRole("status").filter({ hasText: "Following new records." }).waitFor();
    await produceRecords(ui.page, [
      { partition: 1, key: str("tail-1"), value: str("live one"), timestamp: Date.now() },
      { partition: 2, key: str("tail-2"), value: str("not shown"), timestamp: Date.now() },
    ]);
    await waitOrExplain(ui.page, messageRow(ui.page, 1, 1), "live-tail-row");
    expect((await messageCells(ui.page, 1, 1))[2]).toBe("tail-1");
    await produceRecords(ui.page, [
      { partition: 0, key: str("tail-3"), value: str("live two"), timestamp: Date.now() },
    ]);
    await waitOrExplain(ui.page, messageRow(ui.page, 2, 0), "live-tail-second");
    expect(await shownOffsets(ui.page)).toEqual([1, 2]);
    await ui.page.getByRole("button", { name: "Stop following" }).click();
    await ui.page.getByLabel("Value contains", { exact: true }).fill("");
  });

  it("keeps only the rows in view in the page, however many were found", async () => {
    const filler = Array.from({ length: 1_500 }, (_, i) => ({
      partition: i % 3,
      key: str(`filler-${i}`),
      value: str(`row ${i}`),
    }));
    await produceRecords(ui.page, filler);
    await searchMessages(ui.page, { select: { "Show up to": "500" }, fill: { "Key contains": "filler" } });
    const table = messagesTable(ui.page);
    expect(await table.getAttribute("aria-rowcount")).toBe("501");
    expect(await table.locator("tbody tr").count()).toBeLessThan(100);
    await ui.page.getByRole("status", { name: "Scan progress" }).filter({ hasText: "500 shown" }).waitFor();
    await table.evaluate((el) => {
      const scroller = el.parentElement!;
      scroller.scrollTop = scroller.scrollHeight;
    });
    await expect.poll(() => table.locator("tbody tr[aria-rowindex='501']").count()).toBe(1);
    await ui.page.getByRole("button", { name: "Scan further" }).click();
    await ui.page.getByRole("status", { name: "Scan progress" }).filter({ hasText: "1,000 shown" }).waitFor();
  });
});
