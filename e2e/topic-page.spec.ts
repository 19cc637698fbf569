import { describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import {
  compactedTopic,
  saveScreenshot,
  saveScreenshotsAtWidths,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { messageCells, searchMessages, shownOffsets } from "./message-browser-actions";
import { produce, produceUntilRolled, setConfig, showTab } from "./topic-actions";

const TOPIC = "inventory";

describe("topic page", () => {
  const ui = useConsolePage({ account: "Topic Tester", topics: [compactedTopic(TOPIC)] });

  it("opens from the topic list and shows its partitions and configs", async () => {
    await ui.page.goto("/topics");
    await ui.page.getByRole("table", { name: "Topics" }).getByRole("link", { name: TOPIC }).click();
    await ui.page.waitForURL(`**/topics/${TOPIC}`);
    await ui.page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await showTab(ui.page, "Configs");
    const configs = ui.page.getByRole("table", { name: "Configs" });
    const policyRow = configs.getByRole("row", { name: /cleanup\.policy/ });
    expect(await policyRow.getByRole("cell").allTextContents()).toEqual(["compact", "delete", "set"]);
    const retentionRow = configs.getByRole("row", { name: /^retention\.ms / });
    expect(await retentionRow.getByRole("cell").allTextContents()).toEqual([
      "7 d (604800000)",
      "7 d (604800000)",
      "default",
    ]);
    await showTab(ui.page, "Overview");
    await ui.page.getByRole("table", { name: "Partitions" }).getByRole("rowheader", { name: "0" }).waitFor();
    await showTab(ui.page, "Segments & cleaner");
    await waitForNotice(ui.page, "status", "The cleaner has not run on this topic yet.");
    await showTab(ui.page, "Consumers");
    await waitForNotice(ui.page, "status", "No consumer group has committed a position");
  });

  it("keeps the open tab in the URL, through a reload and a shared link, and moves by arrow keys", async () => {
    const tabs = ui.page.getByRole("tablist", { name: "Topic sections" }).getByRole("tab");
    expect(await tabs.allTextContents()).toEqual([
      "Overview",
      "Messages",
      "Consumers",
      "Segments & cleaner",
      "Configs",
    ]);
    await showTab(ui.page, "Messages");
    await ui.page.waitForURL(`**/topics/${TOPIC}?tab=messages`);
    await ui.page.reload();
    await ui.page
      .getByRole("tabpanel", { name: "Messages" })
      .getByRole("form", { name: "Browse messages" })
      .waitFor();
    expect(await ui.page.getByRole("tab", { name: "Messages" }).getAttribute("aria-selected")).toBe("true");
    // Only the open tab is in the page: the configs table is not there until its tab opens.
    expect(await ui.page.getByRole("table", { name: "Configs" }).count()).toBe(0);

    await ui.page.goto(`/topics/${TOPIC}?tab=configs`);
    await ui.page
      .getByRole("tabpanel", { name: "Configs" })
      .getByRole("table", { name: "Configs" })
      .waitFor();
    await ui.page.getByRole("tab", { name: "Configs" }).focus();
    await ui.page.keyboard.press("ArrowLeft");
    await ui.page.getByRole("tabpanel", { name: "Segments & cleaner" }).waitFor();
    await ui.page.waitForURL(`**/topics/${TOPIC}?tab=segments`);
    await ui.page.goBack();
    await ui.page.getByRole("tabpanel", { name: "Configs" }).waitFor();

    await ui.page.goto(`/topics/${TOPIC}?tab=unknown`);
    await ui.page.getByRole("tabpanel", { name: "Overview" }).waitFor();
    for (const tab of ["Overview", "Messages", "Consumers", "Segments & cleaner", "Configs"] as const) {
      await showTab(ui.page, tab);
      const slug = tab.toLowerCase().replace(/[^a-z]+/g, "-");
      const overflow = await saveScreenshotsAtWidths(ui.page, `topic-tab-${slug}`);
      expect(overflow, `${tab} scrolls sideways`).toEqual({ 1440: 0, 390: 0 });
    }
  });

  it("produces values, an empty value and tombstones, and browses them with distinct badges", async () => {
    expect(await produce(ui.page, { key: "sku-1", value: "12", offset: 0 })).toBe(
      "Record written to partition 0 at offset 0.",
    );
    await produce(ui.page, { key: "sku-1", value: '{"count": 11}', json: true, offset: 1 });
    await produce(ui.page, { key: "sku-2", value: "", offset: 2 });
    expect(await produce(ui.page, { key: "sku-1", tombstone: true, offset: 3 })).toBe(
      "Tombstone written to partition 0 at offset 3.",
    );
    const deleteForm = ui.page.getByRole("form", { name: "Delete a key" });
    await deleteForm.getByLabel("Key to delete").fill("sku-2");
    await deleteForm.getByRole("button", { name: "Delete key" }).click();
    await deleteForm.getByRole("status").filter({ hasText: "at offset 4." }).waitFor();

    await searchMessages(ui.page, { select: { "Start from": "earliest" } });
    const valueAt = async (offset: number) => (await messageCells(ui.page, offset))[3];
    expect(await shownOffsets(ui.page)).toEqual([0, 1, 2, 3, 4]);
    expect(await valueAt(0)).toBe("12");
    expect(await valueAt(1)).toBe('{"count":11}');
    expect(await valueAt(2)).toBe("Empty value");
    expect(await valueAt(3)).toBe("Tombstone (null)");
    expect(await valueAt(4)).toBe("Tombstone (null)");

    // The toggle applies to what is shown, without reading again.
    await ui.page.getByLabel("Pretty-print JSON").check();
    await expect.poll(() => valueAt(1)).toBe('{\n  "count": 11\n}');
    expect(await valueAt(2)).toBe("Empty value");

    await saveScreenshot(ui.page, "topic-page");
    await ui.page.emulateMedia({ colorScheme: "dark" });
    await saveScreenshot(ui.page, "topic-page-dark");
  });

  it("draws partition 0's log as a segment bar with a focusable block per segment", async () => {
    await showTab(ui.page, "Segments & cleaner");
    const bar = ui.page.getByRole("list", { name: "Partition 0 segments" });
    // Five small records fit one segment, the active one: nothing is closed, so nothing is dirty yet.
    const block = bar.getByRole("button", { name: "active segment, offsets 0–4", exact: false });
    await waitOrExplain(ui.page, block, "segment-bar-active");
    const states = await bar
      .getByRole("button")
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute("data-state")));
    expect(states).toEqual(["active"]);
    expect(await block.getAttribute("aria-label")).toMatch(/^active segment, offsets 0–4, \d+ B, 5 records$/);

    const heightBefore = (await bar.boundingBox())?.height;
    await block.focus();
    const tooltip = ui.page.getByRole("tooltip");
    await tooltip.waitFor();
    expect(await block.getAttribute("aria-describedby")).toBe(await tooltip.getAttribute("id"));
    const facts = await tooltip.textContent();
    expect(facts).toContain("Active: being written");
    expect(facts).toContain("Offsets0–4");
    expect(facts).toContain("Records5");
    expect((await bar.boundingBox())?.height).toBe(heightBefore);
    await saveScreenshot(ui.page, "topic-segment-bar");
    await block.press("Escape");
    await tooltip.waitFor({ state: "detached" });
  });

  it("starts a read at a typed offset", async () => {
    await showTab(ui.page, "Messages");
    await searchMessages(ui.page, { select: { "Start from": "offset" }, fill: { "Partition 0": "3" } });
    expect(await shownOffsets(ui.page)).toEqual([3, 4]);
  });

  it("changes a config after checking it, rejects a bad value, and resets it", async () => {
    await showTab(ui.page, "Configs");
    const form = ui.page.getByRole("form", { name: "Change a config" });
    const configs = ui.page.getByRole("table", { name: "Configs" });
    const row = configs.getByRole("row", { name: /^delete\.retention\.ms / });
    await form.getByLabel("Config").selectOption("delete.retention.ms");
    // The value is edited in the unit it has (1 d), as at creation: 1 h is typed as hours.
    expect(await form.getByLabel("New value").inputValue()).toBe("1");
    expect(await form.getByLabel("delete.retention.ms unit").inputValue()).toBe("d");
    await form.getByLabel("delete.retention.ms unit").selectOption("h");
    await form.getByRole("button", { name: "Check without saving" }).click();
    await waitForNotice(form, "status", "delete.retention.ms: default 1 d (86400000) → 1 h (3600000)");
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
    // Any dirty closed segment must be cleanable: with the default ratio (0.5) a segment rolled after
    // the first pass can stay dirty for good, and the bar would rightly never turn all clean.
    await setConfig(ui.page, "min.cleanable.dirty.ratio", "0.01");
    await setConfig(ui.page, "segment.bytes", "200");

    const bar = ui.page.getByRole("list", { name: "Partition 0 segments" });
    const states = () =>
      bar.getByRole("button").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-state")));
    await produceUntilRolled(ui.page, 5);
    expect((await states()).length).toBeGreaterThan(1);
    // A roll on a compacted topic with every closed segment dirty enqueues a pass at once.
    await ui.page.waitForFunction(
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
    await saveScreenshot(ui.page, "topic-segment-bar-cleaned");
  }, 60_000);

  it("shows a segment's tombstones in its tooltip, as the segment listing counts them", async () => {
    await showTab(ui.page, "Segments & cleaner");
    const listing = await ui.page.evaluate(async (topic) => {
      const res = await fetch(`/api/v1/topics/${topic}/partitions/0/segments`);
      return (await res.json()) as { segments: { baseOffset: number; tombstones: number }[] };
    }, TOPIC);
    const first = listing.segments[0]!;
    const block = ui.page.getByRole("list", { name: "Partition 0 segments" }).getByRole("button").first();
    await block.hover();
    const tooltip = ui.page.getByRole("tooltip");
    await tooltip.waitFor();
    const facts = (await tooltip.textContent()) ?? "";
    expect(facts).toContain(`Offsets${first.baseOffset}`);
    expect(first.tombstones).toBeTypeOf("number");
    expect(facts).toContain(`Tombstones${first.tombstones}`);
    await ui.page.mouse.move(0, 0);
    await tooltip.waitFor({ state: "detached" });
  });

  it("draws the dirty ratio over time against min.cleanable.dirty.ratio, from the passes that ran", async () => {
    await showTab(ui.page, "Segments & cleaner");
    const chart = ui.page.getByRole("region", { name: "Dirty ratio over time" });
    await chart.scrollIntoViewIfNeeded();
    const figure = chart.getByRole("figure", { name: "Partition 0 dirty ratio over time" });
    await waitOrExplain(ui.page, figure, "dirty-ratio-chart");
    // The threshold line is labelled with the topic's value (set to 0.01 above: 1 %).
    await chart.getByText("min.cleanable.dirty.ratio 1%").waitFor();
    await chart.getByText("Show the").click();
    const history = chart.getByRole("table", { name: "Partition 0 dirty ratio history" });
    const kindCells = history.locator("tbody tr td:nth-child(3)");
    // The runs refresh every 5 s; the pass above may have landed after the last refresh.
    // and the latest report (the "now" point) comes at the worker's next tick after the pass.
    await expect
      .poll(
        async () => {
          const kinds = await kindCells.allTextContents();
          return kinds.includes("after pass") && kinds.at(-1) === "now";
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const kinds = await kindCells.allTextContents();
    // At least one pass: the ratio it saw, then the ratio it left, then the latest report.
    expect(kinds).toContain("before pass");
    expect(kinds).toContain("after pass");
    expect(kinds.at(-1)).toBe("now");
    const ratios = await history.locator("tbody tr td:nth-child(2)").allTextContents();
    const before = ratios[kinds.indexOf("before pass")]!;
    const after = ratios[kinds.indexOf("after pass")]!;
    expect(Number.parseInt(after, 10)).toBeLessThan(Number.parseInt(before, 10));
    // The chart draws one dot per point.
    expect(Number(await figure.getAttribute("data-points"))).toBe(kinds.length);
    expect(await figure.locator(".recharts-line-dot").count()).toBe(kinds.length);
    await saveScreenshot(ui.page, "topic-dirty-ratio-chart");
  });
});
