import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTrpc, launchChromium, newAccount, saveScreenshotsAtWidths, signUp } from "./console-session";
import { type ConsoleStack, startConsoleStack } from "./global-setup";
import { showTab } from "./topic-actions";

const TOPIC = "tiered";

// A stack of its own whose worker tiers to a filesystem object store: closed segments past the
// topic's local retention (0 bytes here) are uploaded, then evicted from the worker's disk.
describe("segment bars with an object store", () => {
  let stack: ConsoleStack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await startConsoleStack({ objectStore: true });
    browser = await launchChromium();
    const context = await browser.newContext({
      baseURL: stack.baseUrl,
      viewport: { width: 1440, height: 900 },
    });
    page = await context.newPage();
    await signUp(page, newAccount("Tier Watcher"));
    expect(
      await callTrpc(page, "topics.create", {
        name: TOPIC,
        partitions: 1,
        configs: { "cleanup.policy": "delete", "segment.bytes": 2048, "local.retention.bytes": 0 },
      }),
    ).toBe(200);
    // One record a batch, so segments roll every couple of kilobytes.
    for (let n = 0; n < 40; n++) {
      const record = {
        key: { type: "string", data: `k${n}` },
        value: { type: "string", data: "v ".repeat(100) },
      };
      expect(await callTrpc(page, "records.produce", { topic: TOPIC, records: [record] })).toBe(200);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.teardown();
  });

  it("draws evicted segments as such, with the object's key and size in the tooltip, and the upload lag", async () => {
    await page.goto(`/topics/${TOPIC}`);
    await showTab(page, "Segments & cleaner");
    const bar = page.getByRole("list", { name: "Partition 0 segments" });
    const evicted = bar.locator('button[data-tier="evicted"]');
    // The tiering worker syncs every second, and evicts once a segment's object is committed; the bar
    // refreshes every 3 s.
    await evicted.first().waitFor({ timeout: 90_000 });
    expect(await evicted.first().getAttribute("aria-label")).toMatch(/, evicted$/);
    const active = bar.getByRole("button", { name: /^active segment/ });
    expect(await active.getAttribute("data-tier")).toBe("local");
    expect(
      await page.getByRole("list", { name: "Segment tiers" }).getByRole("listitem").allTextContents(),
    ).toEqual([
      "Local: on the worker's disk only",
      "Uploaded: on disk and in object storage",
      "Evicted: in object storage only",
    ]);

    await evicted.first().focus();
    const tooltip = page.getByRole("tooltip");
    await tooltip.waitFor();
    const facts = (await tooltip.textContent()) ?? "";
    expect(facts).toContain("Evicted: in object storage only");
    expect(facts).toContain("Objectsegments/");
    expect(facts).toMatch(/Object size\d/);
    expect(await saveScreenshotsAtWidths(page, "tiering-evicted")).toEqual({ 1440: 0, 390: 0 });

    await showTab(page, "Overview");
    const durability = page.getByRole("region", { name: "Durability" });
    await durability.getByText("Upload lag").waitFor();
    await expect
      .poll(async () => (await durability.locator("dd").allTextContents()).join(" | "), { timeout: 20_000 })
      .toMatch(/None: every reported offset is in object storage|not yet uploaded/);
  });
});
