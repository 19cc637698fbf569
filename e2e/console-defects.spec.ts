import { describe, expect, it } from "vitest";
import { saveScreenshot, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { showTab } from "./topic-actions";

describe("small console defects", () => {
  const ui = useConsolePage();

  it("has a favicon: every page links app/icon.svg and it is served as SVG", async () => {
    await ui.page.goto("/sign-in");
    const href = await ui.page.locator('link[rel="icon"]').first().getAttribute("href");
    expect(href).toMatch(/^\/icon\.svg/);
    const icon = await ui.page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
    }, href ?? "");
    expect(icon.status).toBe(200);
    expect(icon.type).toContain("image/svg+xml");
    expect(icon.body).toContain("<svg");
    const overflow = await saveScreenshotsAtWidths(ui.page, "sign-in-with-favicon");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});

describe("the dirty-ratio chart's threshold label", () => {
  const ui = useConsolePage({
    account: "Chart Reader",
    topics: [{ name: "ratios", partitions: 1, cleanupPolicy: "compact" }],
    open: "ratios",
  });

  it("sits inside the plot, clear of both axes' tick labels", async () => {
    await showTab(ui.page, "Segments & cleaner");
    const chart = ui.page.getByRole("region", { name: "Dirty ratio over time" });
    const figure = chart.getByRole("figure", { name: "Partition 0 dirty ratio over time" });
    await waitOrExplain(ui.page, figure, "dirty-ratio-label");
    const label = figure.getByText(/^min\.cleanable\.dirty\.ratio \d+%$/);
    await label.waitFor();
    const box = await label.boundingBox();
    const ticks = await figure
      .locator(".recharts-cartesian-axis-tick-value")
      .evaluateAll((texts) => texts.map((text) => text.getBoundingClientRect().toJSON() as DOMRect));
    expect(box).not.toBeNull();
    expect(ticks.length).toBeGreaterThan(2);
    const overlaps = ticks.filter(
      (tick) =>
        box !== null &&
        tick.left < box.x + box.width &&
        box.x < tick.right &&
        tick.top < box.y + box.height &&
        box.y < tick.bottom,
    );
    expect(overlaps).toEqual([]);
    await saveScreenshot(ui.page, "dirty-ratio-threshold-label");
  });
});
