import { describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import { saveScreenshot, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { setConfig, showTab } from "./topic-actions";

// The topic page's Configs tab: values edited in the units of the create wizard, the erasure
// deadline's suggested change (in whole units) applied with one button, and the config history.

const TOPIC = "customer-profiles";
const OWNER = "Config Keeper";

describe("topic configs", () => {
  const ui = useConsolePage({
    account: OWNER,
    topics: [{ name: TOPIC, partitions: 1, cleanupPolicy: "compact" }],
    open: TOPIC,
  });
  const configRow = (name: string) =>
    ui.page
      .getByRole("table", { name: "Configs" })
      .getByRole("row", { name: new RegExp(`^${name.replaceAll(".", "\\.")} `) });

  it("edits a config in the units used at creation, where the erasure suggestion applies too", async () => {
    const { page } = ui;
    // The create wizard shows segment.ms and segment.bytes in days and GiB…
    await page.goto("/topics");
    const create = page.getByRole("form", { name: "Create a topic" });
    await create.getByText("All configs").click();
    expect(await create.getByLabel("segment.ms unit").inputValue()).toBe("d");
    expect(await create.getByLabel("segment.bytes unit").inputValue()).toBe("GiB");
    // A compacted topic whose min.compaction.lag.ms outlasts the deadline: its preview misses the
    // erasure deadline, and the suggestion goes into the fields.
    await create.getByLabel("Topic name").fill("preview-only");
    await create.getByLabel("min.compaction.lag.ms", { exact: true }).fill("40");
    await create.getByLabel("min.compaction.lag.ms unit").selectOption("d");
    await create.getByRole("button", { name: "Preview: check without creating" }).click();
    await create.getByRole("button", { name: "Apply suggested change" }).click();
    expect(await create.getByLabel("min.compaction.lag.ms", { exact: true }).inputValue()).toBe("29");
    expect(await create.getByLabel("min.compaction.lag.ms unit").inputValue()).toBe("d");
    await create.getByRole("button", { name: "Preview: check without creating" }).click();
    await waitForNotice(create, "status", "inside the organization's 30-day erasure deadline");
    expect(await create.getByRole("button", { name: "Apply suggested change" }).count()).toBe(0);

    // …and so does the Configs tab.
    await page.goto(`/topics/${TOPIC}`);
    await showTab(page, "Configs");
    const form = page.getByRole("form", { name: "Change a config" });
    await form.getByLabel("Config").selectOption("segment.bytes");
    expect(await form.getByLabel("New value").inputValue()).toBe("1");
    expect(await form.getByLabel("segment.bytes unit").inputValue()).toBe("GiB");
    await form.getByLabel("New value").fill("64");
    await form.getByLabel("segment.bytes unit").selectOption("MiB");
    await form.getByRole("button", { name: "Save change" }).click();
    await configRow("segment.bytes").getByRole("cell", { name: "set" }).waitFor();
    expect(await configRow("segment.bytes").getByRole("cell").first().textContent()).toBe(
      "64.0 MiB (67108864)",
    );

    await form.getByLabel("Config").selectOption("segment.ms");
    expect(await form.getByLabel("segment.ms unit").inputValue()).toBe("d");
    await form.getByLabel("New value").fill("12");
    await form.getByLabel("segment.ms unit").selectOption("h");
    await form.getByRole("button", { name: "Check without saving" }).click();
    await waitForNotice(form, "status", "segment.ms: default 7 d (604800000) → 12 h (43200000)");
    await form.getByRole("button", { name: "Save change" }).click();
    await configRow("segment.ms").getByRole("cell", { name: "set" }).waitFor();
    expect(await configRow("segment.ms").getByRole("cell").first().textContent()).toBe("12 h (43200000)");
  });

  it("suggests the change that meets the erasure deadline, in whole units, and applies it", async () => {
    const { page } = ui;
    const card = page.getByRole("region", { name: "Erasure deadline" });
    await waitOrExplain(page, card, "configs-erasure-card");
    // Kafka's defaults meet the deadline (the worker rewrites an erased key at once)…
    await card.getByText(/purged and proven gone within .* at worst/).waitFor();
    // …a min.compaction.lag.ms of 40 days does not: it holds the key's old values past 30 days.
    await setConfig(page, "min.compaction.lag.ms", String(40 * 86_400_000));
    const suggestion = card.getByRole("list", { name: "Suggested config change" });
    await suggestion.waitFor();
    expect(await suggestion.getByRole("listitem").allTextContents()).toEqual([
      "min.compaction.lag.ms: 40 d (3456000000) → 29 d (2505600000)",
    ]);
    await saveScreenshot(page, "topic-configs-erasure-suggestion");
    await card.getByRole("button", { name: "Apply suggested change" }).click();
    await card
      .getByText(
        /purged and proven gone within .* at worst, inside the organization's 30-day erasure deadline/,
      )
      .waitFor();
    expect(await card.getByRole("button", { name: "Apply suggested change" }).count()).toBe(0);
    expect(await configRow("min.compaction.lag.ms").getByRole("cell").first().textContent()).toBe(
      "29 d (2505600000)",
    );
  });

  it("lists who changed which config when, newest first, with the diff", async () => {
    const { page } = ui;
    const history = page.getByRole("table", { name: "Config history" });
    await waitOrExplain(page, history, "configs-history");
    const rows = history.getByRole("row");
    // Header, four changes and the creation.
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(6);
    const changes = await history
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => (tr.querySelector("td:last-child")?.textContent ?? "").trim()));
    expect(changes).toEqual([
      "min.compaction.lag.ms: 40 d (3456000000) → 29 d (2505600000)",
      "min.compaction.lag.ms: default 0 ms (0) → 40 d (3456000000)",
      "segment.ms: default 7 d (604800000) → 12 h (43200000)",
      "segment.bytes: default 1.0 GiB (1073741824) → 64.0 MiB (67108864)",
      "Created withcleanup.policy: default delete → compact",
    ]);
    const who = await history.locator("tbody tr td:nth-child(2)").allTextContents();
    expect(new Set(who).size).toBe(1);
    expect(who[0]).toContain(OWNER);
    const overflow = await saveScreenshotsAtWidths(page, "topic-configs-history");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
