import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { saveScreenshotsAtWidths, useTopicPage, waitOrExplain } from "./console-session";
import { bodyRows } from "./page-parts";
import { produce, showTab } from "./topic-actions";

// The e2e worker runs without an object store, so the card must say the topic is on local disk
// only, whatever its lastword.durability; the object-store wording is the unit test's
// (apps/web/src/lib/durability-wording.test.ts) and the API's facts the integration test's.
const TOPIC = "durable-orders";

/** The durability table's rows as [partition, log end, in storage up to, not uploaded, objects, last upload]. */
async function durabilityRows(page: Page): Promise<string[][]> {
  return bodyRows(page.getByRole("table", { name: "Partition durability" }));
}

describe("the topic page's durability card", () => {
  const ui = useTopicPage("Durability Viewer", TOPIC);

  it("says a fleet without an object store keeps the topic on local disk only, with each partition's log end", async () => {
    await produce(ui.page, { key: "order-1", value: "placed", offset: 0 });
    await produce(ui.page, { key: "order-2", value: "placed", offset: 1 });
    await showTab(ui.page, "Overview");
    const card = ui.page.getByRole("region", { name: "Durability" });
    await waitOrExplain(
      ui.page,
      card.getByText("Local disk only: no object store configured"),
      "durability-mode",
    );
    await card.getByText("No recovery point: the partitions are only on their worker's disk").waitFor();
    // The log end is the owner's stats report, refreshed every scheduler tick.
    await expect
      .poll(() => durabilityRows(ui.page), { timeout: 30_000 })
      .toEqual([["0", "2", "—", "—", "0 (0 B)", "never"]]);
    await card.scrollIntoViewIfNeeded();
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-durability-card");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
