import { describe, expect, it } from "vitest";
import {
  compactedTopic,
  deletePolicyTopic,
  saveScreenshotsAtWidths,
  useConsolePage,
} from "./console-session";
import { showTab } from "./topic-actions";

const COMPACTED = "ledger";
const EVENTS = "click-stream";

describe("topic actions: partitions and deletion", () => {
  const ui = useConsolePage({
    account: "Topic Admin",
    topics: [compactedTopic(COMPACTED), deletePolicyTopic(EVENTS)],
  });

  it("shows on a compacted topic why partitions cannot be added, before any click, in the API's words", async () => {
    await ui.page.goto(`/topics/${COMPACTED}`);
    await showTab(ui.page, "Overview");
    const actions = ui.page.getByRole("region", { name: "Topic actions" });
    const button = actions.getByRole("button", { name: "Add partitions" });
    expect(await button.isDisabled()).toBe(true);
    const reasonId = (await button.getAttribute("aria-describedby")) ?? "";
    const reason = (await ui.page.locator(`[id="${reasonId}"]`).textContent()) ?? "";
    expect(reason).toContain("A compacted topic keeps its partition count.");
    expect(reason).toContain("Create a new topic with the partition count you need and replay this one");
    expect(await actions.getByRole("form", { name: "Add partitions" }).count()).toBe(0);

    // The API refuses the same change with the same explanation.
    const refusal = await ui.page.evaluate(async (topic) => {
      const res = await fetch(`/api/v1/topics/${topic}/partitions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ count: 2 }),
      });
      return { status: res.status, body: (await res.json()) as { detail?: string } };
    }, COMPACTED);
    expect(refusal.status).toBe(409);
    expect(refusal.body.detail).toContain(
      reason.replace("A compacted topic keeps its partition count. ", ""),
    );
    await actions.scrollIntoViewIfNeeded();
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-actions-compacted");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("draws an empty partition's 0-byte active segment as a sliver, not a full bar", async () => {
    await showTab(ui.page, "Segments & cleaner");
    const bar = ui.page.getByRole("list", { name: "Partition 0 segments" });
    const block = bar.getByRole("button", { name: /^active segment/ });
    await block.waitFor();
    expect(await block.getAttribute("aria-label")).toContain("0 B");
    const barWidth = (await bar.boundingBox())?.width ?? 0;
    const blockWidth = (await block.boundingBox())?.width ?? barWidth;
    expect(blockWidth).toBeLessThan(barWidth / 10);
    await saveScreenshotsAtWidths(ui.page, "topic-empty-segment-bar");
  });

  it("adds partitions to a delete-policy topic, refusing a smaller count in its own words", async () => {
    await ui.page.goto(`/topics/${EVENTS}`);
    const form = ui.page.getByRole("form", { name: "Add partitions" });
    const count = form.getByLabel("New partition count");
    await count.fill("1");
    await form.getByRole("button", { name: "Add partitions" }).click();
    await form.getByText("The topic has 1 partition: the new count must be larger.").waitFor();
    expect(await count.getAttribute("aria-invalid")).toBe("true");

    await count.fill("3");
    await form.getByRole("button", { name: "Add partitions" }).click();
    await form.getByRole("status").filter({ hasText: "The topic now has 3 partitions." }).waitFor();
    expect(await count.getAttribute("aria-invalid")).toBeNull();
    const partitions = ui.page.getByRole("table", { name: "Partitions" });
    await partitions.getByRole("rowheader", { name: "2", exact: true }).waitFor();
    expect(await ui.page.getByRole("heading", { level: 1 }).locator("xpath=..").textContent()).toContain(
      "3 partitions",
    );
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-actions-add-partitions");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("deletes a topic only once its name is typed, after saying what happens to its consumers", async () => {
    await ui.page
      .getByRole("region", { name: "Topic actions" })
      .getByRole("button", { name: "Delete topic" })
      .click();
    const dialog = ui.page.getByRole("dialog", { name: `Delete topic ${EVENTS}?` });
    await dialog.waitFor();
    const said = (await dialog.textContent()) ?? "";
    expect(said).toContain("committed offsets on this topic are removed");
    expect(said).toContain("unknown-topic errors");
    expect(said).toContain("must be restarted");
    const confirm = dialog.getByRole("button", { name: "Delete this topic" });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${EVENTS} to confirm`).fill("click-strea");
    expect(await confirm.isDisabled()).toBe(true);
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-actions-delete-dialog");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });

    // Escape closes it and forgets what was typed.
    await ui.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await ui.page.getByRole("button", { name: "Delete topic" }).click();
    expect(await dialog.getByLabel(`Type ${EVENTS} to confirm`).inputValue()).toBe("");

    await dialog.getByLabel(`Type ${EVENTS} to confirm`).fill(EVENTS);
    await confirm.click();
    await ui.page.waitForURL("**/topics");
    const topics = ui.page.getByRole("table", { name: "Topics" });
    await topics.getByRole("rowheader", { name: COMPACTED, exact: true }).waitFor();
    expect(await topics.getByRole("rowheader", { name: EVENTS, exact: true }).count()).toBe(0);
  });
});
