import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTopic,
  launchChromium,
  newAccount,
  newConsolePage,
  saveScreenshot,
  signUp,
  waitOrExplain,
} from "./console-session";

const TOPIC = "inventory";

/** Produces one record through the form and returns the sentence it answers with. */
async function produce(
  page: Page,
  record: { key: string; value?: string; json?: boolean; tombstone?: boolean; offset: number },
): Promise<string | null> {
  const form = page.getByRole("form", { name: "Produce a record" });
  await form.getByLabel("Key", { exact: true }).fill(record.key);
  await form.getByLabel("Value format").selectOption(record.json ? "json" : "string");
  await form.getByLabel("Tombstone: send a null value").setChecked(record.tombstone ?? false);
  if (!record.tombstone) await form.getByLabel("Value", { exact: true }).fill(record.value ?? "");
  // Enter in a text field submits: the form works from the keyboard alone.
  await form.getByLabel("Key", { exact: true }).press("Enter");
  const status = form.getByRole("status").filter({ hasText: `at offset ${record.offset}.` });
  await waitOrExplain(page, status, `produce-offset-${record.offset}`);
  return status.textContent();
}

describe("topic page", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await newConsolePage(browser);
    await signUp(page, newAccount("Topic Tester"));
    await createTopic(page, { name: TOPIC, partitions: 1, cleanupPolicy: "compact" });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("opens from the topic list and shows its partitions and configs", async () => {
    await page.getByRole("table", { name: "Topics" }).getByRole("link", { name: TOPIC }).click();
    await page.waitForURL(`**/topics/${TOPIC}`);
    await page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    const configs = page.getByRole("table", { name: "Configs" });
    const policyRow = configs.getByRole("row", { name: /cleanup\.policy/ });
    expect(await policyRow.getByRole("cell").allTextContents()).toEqual(["compact", "delete", "set"]);
    const retentionRow = configs.getByRole("row", { name: /^retention\.ms / });
    expect(await retentionRow.getByRole("cell").allTextContents()).toEqual([
      "7 d (604800000)",
      "7 d (604800000)",
      "default",
    ]);
    await page.getByRole("table", { name: "Partitions" }).getByRole("rowheader", { name: "0" }).waitFor();
    await page
      .getByRole("status")
      .filter({ hasText: "The cleaner has not run on this topic yet." })
      .waitFor();
    await page
      .getByRole("status")
      .filter({ hasText: "No consumer group has committed a position" })
      .waitFor();
  });

  it("produces values, an empty value and tombstones, and browses them with distinct badges", async () => {
    expect(await produce(page, { key: "sku-1", value: "12", offset: 0 })).toBe(
      "Record written to partition 0 at offset 0.",
    );
    await produce(page, { key: "sku-1", value: '{"count": 11}', json: true, offset: 1 });
    await produce(page, { key: "sku-2", value: "", offset: 2 });
    expect(await produce(page, { key: "sku-1", tombstone: true, offset: 3 })).toBe(
      "Tombstone written to partition 0 at offset 3.",
    );
    const deleteForm = page.getByRole("form", { name: "Delete a key" });
    await deleteForm.getByLabel("Key to delete").fill("sku-2");
    await deleteForm.getByRole("button", { name: "Delete key" }).click();
    await deleteForm.getByRole("status").filter({ hasText: "at offset 4." }).waitFor();

    const browserForm = page.getByRole("form", { name: "Browse messages" });
    await browserForm.getByLabel("Start from").selectOption("earliest");
    await browserForm.getByRole("button", { name: "Read messages" }).click();
    const messages = page.getByRole("table", { name: "Messages in partition 0" });
    await messages.waitFor();
    const valueAt = async (offset: number) =>
      (
        await messages
          .getByRole("row", { name: new RegExp(`^${offset} `) })
          .getByRole("cell")
          .allTextContents()
      )[2];
    expect(await messages.getByRole("rowheader").allTextContents()).toEqual(["0", "1", "2", "3", "4"]);
    expect(await valueAt(0)).toBe("12");
    expect(await valueAt(1)).toBe('{"count":11}');
    expect(await valueAt(2)).toBe("Empty value");
    expect(await valueAt(3)).toBe("Tombstone (null)");
    expect(await valueAt(4)).toBe("Tombstone (null)");

    await browserForm.getByLabel("Show JSON values pretty-printed").check();
    await browserForm.getByRole("button", { name: "Read messages" }).click();
    await messages.locator("pre").first().waitFor();
    expect(await valueAt(1)).toBe('{\n  "count": 11\n}');
    expect(await valueAt(2)).toBe("Empty value");

    await saveScreenshot(page, "topic-page");
    await page.emulateMedia({ colorScheme: "dark" });
    await saveScreenshot(page, "topic-page-dark");
  });

  it("draws partition 0's log as a segment bar with a focusable block per segment", async () => {
    const bar = page.getByRole("list", { name: "Partition 0 segments" });
    // Five small records fit one segment, the active one: nothing is closed, so nothing is dirty yet.
    const block = bar.getByRole("button", { name: "active segment, offsets 0–4", exact: false });
    await waitOrExplain(page, block, "segment-bar-active");
    const states = await bar
      .getByRole("button")
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute("data-state")));
    expect(states).toEqual(["active"]);
    expect(await block.getAttribute("aria-label")).toMatch(/^active segment, offsets 0–4, \d+ B, 5 records$/);

    const heightBefore = (await bar.boundingBox())?.height;
    await block.focus();
    const tooltip = page.getByRole("tooltip");
    await tooltip.waitFor();
    expect(await block.getAttribute("aria-describedby")).toBe(await tooltip.getAttribute("id"));
    const facts = await tooltip.textContent();
    expect(facts).toContain("Active: being written");
    expect(facts).toContain("Offsets0–4");
    expect(facts).toContain("Records5");
    expect((await bar.boundingBox())?.height).toBe(heightBefore);
    await saveScreenshot(page, "topic-segment-bar");
    await block.press("Escape");
    await tooltip.waitFor({ state: "detached" });
  });

  it("starts a read at a typed offset", async () => {
    const browserForm = page.getByRole("form", { name: "Browse messages" });
    await browserForm.getByLabel("Start from").selectOption("offset");
    await browserForm.getByLabel("Offset", { exact: true }).fill("3");
    await browserForm.getByRole("button", { name: "Read messages" }).click();
    const messages = page.getByRole("table", { name: "Messages in partition 0" });
    await messages.getByRole("rowheader", { name: "3", exact: true }).waitFor();
    expect(await messages.getByRole("rowheader").allTextContents()).toEqual(["3", "4"]);
  });

  it("changes a config after checking it, rejects a bad value, and resets it", async () => {
    const form = page.getByRole("form", { name: "Change a config" });
    const configs = page.getByRole("table", { name: "Configs" });
    const row = configs.getByRole("row", { name: /^delete\.retention\.ms / });
    await form.getByLabel("Config").selectOption("delete.retention.ms");
    await form.getByLabel("New value").fill("3600000");
    await form.getByRole("button", { name: "Check without saving" }).click();
    await form
      .getByRole("status")
      .filter({ hasText: "delete.retention.ms: default 86400000 → 3600000" })
      .waitFor();
    expect(await row.getByRole("cell").last().textContent()).toBe("default");

    await form.getByRole("button", { name: "Save change" }).click();
    await row.getByRole("cell").filter({ hasText: "set" }).waitFor();
    expect(await row.getByRole("cell").first().textContent()).toBe("1 h (3600000)");

    await form.getByLabel("New value").fill("soon");
    await form.getByRole("button", { name: "Save change" }).click();
    await form.getByRole("alert").waitFor();

    await form.getByRole("button", { name: "Reset to default" }).click();
    await row.getByRole("cell").filter({ hasText: "default" }).waitFor();
    expect(await row.getByRole("cell").first().textContent()).toBe("1 d (86400000)");
  });

  it("shows closed segments turning clean when small segments make the cleaner run", async () => {
    const form = page.getByRole("form", { name: "Change a config" });
    const configs = page.getByRole("table", { name: "Configs" });
    // Any dirty closed segment must be cleanable: with the default ratio (0.5) a segment rolled after
    // the first pass can stay dirty for good, and the bar would rightly never turn all clean.
    for (const [name, value] of [
      ["min.cleanable.dirty.ratio", "0.01"],
      ["segment.bytes", "200"],
    ] as const) {
      await form.getByLabel("Config").selectOption(name);
      await form.getByLabel("New value").fill(value);
      await form.getByRole("button", { name: "Save change" }).click();
      await configs
        .getByRole("row", { name: new RegExp(`^${name.replaceAll(".", "\\.")} `) })
        .getByRole("cell", { name: "set" })
        .waitFor();
    }

    const bar = page.getByRole("list", { name: "Partition 0 segments" });
    const states = () =>
      bar.getByRole("button").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-state")));
    // The worker reopens the log with the new size at its next lease renewal; until then appends
    // still go to the old active segment. Produce until one rolls.
    let offset = 5;
    for (; offset < 25 && (await states()).length < 2; offset++) {
      await produce(page, { key: `sku-${offset % 3}`, value: `v${offset}`, offset });
      await page.waitForTimeout(500);
    }
    expect((await states()).length).toBeGreaterThan(1);
    // A roll on a compacted topic with every closed segment dirty enqueues a pass at once.
    await page.waitForFunction(
      () => {
        const blocks = [...document.querySelectorAll('ul[aria-label="Partition 0 segments"] button')];
        const kinds = blocks.map((b) => b.getAttribute("data-state"));
        return (
          kinds.length > 1 && kinds.at(-1) === "active" && kinds.slice(0, -1).every((k) => k === "clean")
        );
      },
      undefined,
      { timeout: 30_000, polling: 500 },
    );
    const final = await states();
    expect(final.at(-1)).toBe("active");
    expect(final.slice(0, -1).every((state) => state === "clean")).toBe(true);
    await bar.scrollIntoViewIfNeeded();
    await saveScreenshot(page, "topic-segment-bar-cleaned");
  }, 60_000);
});
