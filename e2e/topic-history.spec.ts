import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { callTrpc, compactedTopic, saveScreenshotsAtWidths, useConsolePage } from "./console-session";
import { searchMessages, shownOffsets } from "./message-browser-actions";
import { showTab } from "./topic-actions";

const TOPIC = "traffic";

/**
 * Reloads until `chart` shows in `card`: the owner's next sample (within seconds) feeds it, and a
 * reload refetches at once instead of at the card's half-minute refresh. The card asks for the
 * history only once it shows, so each look first waits for that answer (its loading notice gone):
 * a slow answer on a busy machine is not "no samples yet".
 */
async function shownAfterReload(page: Page, card: Locator, chart: Locator): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.reload();
        await card.waitFor();
        await card.getByText("Loading the last hour…").first().waitFor({ state: "detached" });
        return chart.isVisible();
      },
      { timeout: 45_000, interval: 2_000 },
    )
    .toBe(true);
  // Recharts draws into the figure once its container has been measured.
  await chart.locator(".recharts-surface").first().waitFor();
}
const GROUP = "billing";

describe("topic charts from the per-minute samples", () => {
  const ui = useConsolePage({
    account: "Chart Watcher",
    topics: [compactedTopic(TOPIC, 2)],
    open: TOPIC,
  });

  it("draws stored vs live bytes and the produce and fetch rates on the overview", async () => {
    const { page } = ui;
    const records = [0, 0, 1, 1, 1].map((partition, i) => ({
      partition,
      key: { type: "string", data: `k${i}` },
      value: { type: "string", data: `value ${i}` },
    }));
    expect(await callTrpc(page, "records.produce", { topic: TOPIC, records })).toBe(200);
    await page.reload();
    await showTab(page, "Overview");
    const card = page.getByRole("region", { name: "Traffic and size over the last hour" });
    const bytes = card.getByRole("figure", { name: "Stored vs live bytes" });
    await shownAfterReload(page, card, bytes);
    // Two series (stored, live), one dot per point each.
    const points = Number(await bytes.getAttribute("data-points"));
    expect(points).toBeGreaterThan(0);
    await expect.poll(() => bytes.locator(".recharts-line-dot").count()).toBe(2 * points);
    expect((await bytes.locator(".recharts-legend-item-text").allTextContents()).sort()).toEqual([
      "Live",
      "Stored",
    ]);
    // Reading the records (the Messages tab's browser) shows up as fetched records within seconds.
    await searchMessages(page);
    expect(await shownOffsets(page)).not.toEqual([]);
    await showTab(page, "Overview");
    const rate = card.getByRole("figure", { name: "Records produced and fetched per minute" });
    await shownAfterReload(page, card, rate);
    expect((await rate.locator(".recharts-legend-item-text").allTextContents()).sort()).toEqual([
      "Fetched",
      "Produced",
    ]);
    await expect
      .poll(
        async () => {
          await page.reload();
          await rate.locator(".recharts-surface").first().waitFor();
          return rate.locator(".recharts-bar-rectangle").count();
        },
        { timeout: 45_000, interval: 2_000 },
      )
      .toBeGreaterThan(0);
    const overflow = await saveScreenshotsAtWidths(page, "topic-traffic-charts");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("draws a group's lag over time on the consumers tab", async () => {
    const { page } = ui;
    expect(
      await callTrpc(page, "consumerGroups.commitOffsets", {
        group: GROUP,
        offsets: [
          { topic: TOPIC, partition: 0, offset: 1 },
          { topic: TOPIC, partition: 1, offset: 0 },
        ],
      }),
    ).toBe(200);
    await showTab(page, "Consumers");
    const card = page.getByRole("region", { name: "Consumer lag over the last hour" });
    const chart = card.getByRole("figure", { name: "Consumer lag per group" });
    await shownAfterReload(page, card, chart);
    expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThan(0);
    expect(await chart.locator(".recharts-line-dot").count()).toBeGreaterThan(0);
    await saveScreenshotsAtWidths(page, "topic-lag-chart");
  });
});
