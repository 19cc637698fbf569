import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { messagesTable } from "./message-browser-actions";
import { showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("haystack");
const PARTITIONS = 4;
const RECORDS = 100_000;
/** Records whose key starts "needle-": spread over the partitions (i % 4 is 2, 1, 0, 3, …). */
const NEEDLES = [1234, 12345, 23456, 34567, 45678, 56789, 67890, 78901, 89012, 99999];
/** What the JavaScript filter keeps: n a multiple of 11,111 (0, 11111, …, 99999). */
const ELEVENS = Array.from({ length: 10 }, (_, k) => k * 11_111);
/**
 * How long one filtered scan of the 100,000 records may take: generous for a loaded 2-core CI
 * machine (a quiet one takes a few seconds); the speed itself belongs in a bench, not here.
 */
const SCAN_BOUND_MS = 180_000;

const keyOf = (i: number) => (NEEDLES.includes(i) ? `needle-${i}` : `rec-${i}`);

/** Produces the haystack through the console's own tRPC endpoint, 5,000 records a request. */
async function produceHaystack(page: Page): Promise<void> {
  const failed = await page.evaluate(
    async ({ topic, total, partitions, needles }) => {
      const bad: string[] = [];
      for (let start = 0; start < total; start += 5_000) {
        const records = Array.from({ length: Math.min(5_000, total - start) }, (_, j) => {
          const i = start + j;
          return {
            partition: i % partitions,
            key: { type: "string", data: needles.includes(i) ? `needle-${i}` : `rec-${i}` },
            value: { type: "json", data: { n: i, kind: needles.includes(i) ? "needle" : "hay" } },
          };
        });
        const res = await fetch("/api/trpc/records.produce", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ topic, records }),
        });
        if (!res.ok) bad.push(`${start}: ${res.status} ${await res.text()}`);
      }
      return bad;
    },
    { topic: TOPIC, total: RECORDS, partitions: PARTITIONS, needles: NEEDLES },
  );
  expect(failed).toEqual([]);
}

const progress = (page: Page) => page.getByRole("status", { name: "Scan progress" });
const summary = (page: Page) => progress(page).filter({ hasText: /^Scanned/ });

/** The keys shown, sorted (the order is the table's; what matters is which records). */
async function shownKeys(page: Page): Promise<string[]> {
  const keys = await messagesTable(page)
    .locator("tbody tr:not([aria-hidden])")
    .evaluateAll((trs) => trs.map((tr) => tr.children[3]?.textContent ?? ""));
  return keys.sort();
}

/** Partition of each shown row. */
async function shownPartitions(page: Page): Promise<Set<string>> {
  const parts = await messagesTable(page)
    .locator("tbody tr:not([aria-hidden])")
    .evaluateAll((trs) => trs.map((tr) => tr.children[0]?.textContent ?? ""));
  return new Set(parts);
}

/** Fills the form, searches, watches the progress line count up, and answers the final summary and its time. */
async function filteredSearch(
  page: Page,
  fill: Record<string, string>,
): Promise<{ text: string; ms: number }> {
  const form = page.getByRole("form", { name: "Browse messages" });
  await form.getByLabel("Start from", { exact: true }).selectOption("earliest");
  await form.getByLabel("Scan up to", { exact: true }).selectOption("100000");
  for (const [label, value] of Object.entries(fill))
    await form.getByLabel(label, { exact: true }).fill(value);
  const started = Date.now();
  await form.getByRole("button", { name: "Search messages" }).click();
  // Progress while it reads: records scanned so far and the matches, before the end.
  await progress(page)
    .filter({ hasText: /^Searching… Scanned [1-9][\d,]* records \([\d.]+ MB\), \d+ match/ })
    .waitFor({ timeout: SCAN_BOUND_MS });
  await summary(page).waitFor({ timeout: SCAN_BOUND_MS });
  return { text: (await summary(page).textContent()) ?? "", ms: Date.now() - started };
}

describe("message browser: latest on open, linked searches, programmable filters over 100,000 records", () => {
  const ui = useConsolePage({
    account: "Filter Person",
    topics: [{ name: TOPIC, partitions: PARTITIONS, cleanupPolicy: "compact" }],
  });

  beforeAll(async () => {
    await ui.page.goto(`/topics/${TOPIC}`);
    await ui.page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await produceHaystack(ui.page);
  }, 300_000);

  it("shows the latest records as soon as the tab opens, without a search", async () => {
    await showTab(ui.page, "Messages");
    await waitOrExplain(ui.page, summary(ui.page), "latest-on-open");
    // From the latest: each partition's last 100, the newest 100 of them.
    expect(await summary(ui.page).textContent()).toBe(
      "Scanned 400 records to the end of the log; 100 shown.",
    );
    // 100 rows (only those in view are drawn), every one among the last 100 of its partition.
    expect(await messagesTable(ui.page).getAttribute("aria-rowcount")).toBe("101");
    const keys = await shownKeys(ui.page);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => Number(k.split("-")[1]) >= RECORDS - 400)).toBe(true);
  });

  it("a regular expression finds the needles across partitions, with progress, within the bound", async () => {
    const { text, ms } = await filteredSearch(ui.page, { "Regular expression": "^needle-\\d+$" });
    expect(text).toBe("Scanned 100,000 records to the end of the log; 10 shown.");
    expect(ms).toBeLessThan(SCAN_BOUND_MS);
    console.info(`regex over ${RECORDS} records: ${ms} ms`);
    expect(await shownKeys(ui.page)).toEqual(NEEDLES.map(keyOf).sort());
    expect(await shownPartitions(ui.page)).toEqual(new Set(["0", "1", "2", "3"]));
  }, 400_000);

  it("a linked search, opened in a new page and reloaded, reproduces the same results", async () => {
    const url = ui.page.url();
    expect(new URL(url).searchParams.get("regex")).toBe("^needle-\\d+$");
    expect(new URL(url).searchParams.get("tab")).toBe("messages");
    const linked = await ui.page.context().newPage();
    await linked.goto(url);
    await summary(linked).waitFor({ timeout: SCAN_BOUND_MS });
    expect(await summary(linked).textContent()).toBe(
      "Scanned 100,000 records to the end of the log; 10 shown.",
    );
    expect(await shownKeys(linked)).toEqual(NEEDLES.map(keyOf).sort());
    expect(await linked.getByLabel("Regular expression", { exact: true }).inputValue()).toBe("^needle-\\d+$");
    await linked.reload();
    await summary(linked).waitFor({ timeout: SCAN_BOUND_MS });
    expect(await shownKeys(linked)).toEqual(NEEDLES.map(keyOf).sort());
    await linked.close();
  }, 400_000);

  it("a JavaScript filter finds its records across partitions, with progress, within the bound", async () => {
    const { text, ms } = await filteredSearch(ui.page, {
      "Regular expression": "",
      "JavaScript filter": "return record.json.n % 11111 === 0",
    });
    expect(text).toBe("Scanned 100,000 records to the end of the log; 10 shown.");
    expect(ms).toBeLessThan(SCAN_BOUND_MS);
    console.info(`JavaScript filter over ${RECORDS} records: ${ms} ms`);
    expect(await shownKeys(ui.page)).toEqual(ELEVENS.map(keyOf).sort());
    expect(await shownPartitions(ui.page)).toEqual(new Set(["0", "1", "2", "3"]));
  }, 400_000);

  it("says why a filter the sandbox stopped failed", async () => {
    const form = ui.page.getByRole("form", { name: "Browse messages" });
    await form.getByLabel("JavaScript filter", { exact: true }).fill("return process.exit(1)");
    await form.getByRole("button", { name: "Search messages" }).click();
    await ui.page.getByRole("alert").filter({ hasText: "process is not defined" }).waitFor();
  });

  it("stops a long search on Stop, keeping what it read, and scans further from there to the end", async () => {
    const form = ui.page.getByRole("form", { name: "Browse messages" });
    // A filter that spins a while on every record: the whole topic would take tens of seconds.
    await form
      .getByLabel("JavaScript filter", { exact: true })
      .fill(
        "let x = 0; for (let i = 0; i < 300000; i++) x += i; return x > 0 && record.json.kind === 'needle'",
      );
    await form.getByRole("button", { name: "Search messages" }).click();
    await progress(ui.page)
      .filter({ hasText: /^Searching… Scanned [1-9]/ })
      .waitFor({ timeout: SCAN_BOUND_MS });
    await form.getByRole("button", { name: "Stop" }).click();
    const stopped = progress(ui.page).filter({ hasText: /then stopped/ });
    await stopped.waitFor({ timeout: SCAN_BOUND_MS });
    const scanned = Number(
      /^Scanned ([\d,]+)/.exec((await stopped.textContent()) ?? "")?.[1]?.replaceAll(",", ""),
    );
    expect(scanned).toBeGreaterThan(0);
    expect(scanned).toBeLessThan(RECORDS);
    // Scan further goes on from where it stopped: to the end, every record read once, every needle found once.
    await ui.page.getByRole("button", { name: "Scan further" }).click();
    const ended = progress(ui.page).filter({ hasText: /to the end of the log/ });
    await ended.waitFor({ timeout: SCAN_BOUND_MS });
    expect(await ended.textContent()).toBe("Scanned 100,000 records to the end of the log; 10 shown.");
    expect(await shownKeys(ui.page)).toEqual(NEEDLES.map(keyOf).sort());
    await form.getByLabel("JavaScript filter", { exact: true }).fill("");
  }, 400_000);

  it("opens a record in a drawer, copies it and produces it again through the produce form", async () => {
    await filteredSearch(ui.page, { "Regular expression": "^needle-1234$", "JavaScript filter": "" });
    await messagesTable(ui.page)
      .getByRole("button", {
        name: `Open the record at partition ${1234 % PARTITIONS}, offset ${Math.floor(1234 / PARTITIONS)}`,
      })
      .click();
    const drawer = ui.page.getByRole("dialog");
    await drawer
      .getByRole("heading", {
        name: `Partition ${1234 % PARTITIONS}, offset ${Math.floor(1234 / PARTITIONS)}`,
      })
      .waitFor();
    expect(await drawer.getByRole("figure", { name: "Key" }).textContent()).toContain("needle-1234");
    expect(await drawer.getByRole("figure", { name: "Value" }).textContent()).toContain('"kind": "needle"');
    await saveScreenshotsAtWidths(ui.page, "message-record-drawer");
    await drawer.getByRole("button", { name: "Produce again" }).click();
    await drawer.waitFor({ state: "detached" });
    const produce = ui.page.getByRole("form", { name: "Produce a record" });
    expect(await produce.getByLabel("Key", { exact: true }).inputValue()).toBe("needle-1234");
    // The API answers a JSON value as its text: produced again as that text, the bytes are the same.
    expect(await produce.getByLabel("Value format", { exact: true }).inputValue()).toBe("string");
    expect(JSON.parse(await produce.getByLabel("Value", { exact: true }).inputValue())).toEqual({
      n: 1234,
      kind: "needle",
    });
    expect(await produce.getByLabel("Target partition", { exact: true }).inputValue()).toBe(
      String(1234 % PARTITIONS),
    );
    await produce.getByRole("button", { name: "Produce" }).click();
    await produce
      .getByRole("status")
      .filter({
        hasText: `Record written to partition ${1234 % PARTITIONS} at offset ${RECORDS / PARTITIONS}.`,
      })
      .waitFor();
  });

  it("on a phone, each record is a card with its key and value, and nothing scrolls sideways", async () => {
    await filteredSearch(ui.page, { "Regular expression": "^needle-", "JavaScript filter": "" });
    const overflow = await saveScreenshotsAtWidths(ui.page, "message-browser-filters");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
    await ui.page.setViewportSize({ width: 390, height: 844 });
    const row = messagesTable(ui.page).locator("tbody tr:not([aria-hidden])").first();
    const cells = await row.evaluate((tr) =>
      [...tr.children].map((cell) => ({
        display: getComputedStyle(cell).display,
        label: getComputedStyle(cell, "::before").content,
        right: cell.getBoundingClientRect().right,
      })),
    );
    // Stacked: every cell a line of its own, labelled with its column, inside the screen.
    expect(cells.map((c) => c.display).every((d) => d === "flex")).toBe(true);
    expect(cells.map((c) => c.label)).toEqual([
      '"Partition"',
      '"Offset"',
      '"Timestamp"',
      '"Key"',
      '"Value"',
      '"Headers"',
      '"Record"',
    ]);
    expect(Math.max(...cells.map((c) => c.right))).toBeLessThanOrEqual(390);
    expect(await row.textContent()).toMatch(/needle-\d+/);
    await ui.page.setViewportSize({ width: 1280, height: 800 });
  }, 400_000);
});
