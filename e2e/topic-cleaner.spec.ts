import { randomBytes } from "node:crypto";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compactedTopic, saveScreenshot, useConsolePage, waitOrExplain } from "./console-session";
import { messagesTable, searchMessages, shownOffsets } from "./message-browser-actions";
import { partitionDir, produceUntilRolled, setConfig, showTab } from "./topic-actions";

const TOPIC = `ledger-${randomBytes(3).toString("hex")}`;

/**
 * A directory where the cleaner writes a segment's `.cleaned` copy makes every pass over the
 * partition fail (EISDIR) for real, without touching the data; removing it lets the next pass run.
 */
async function blockCleanedCopies(dir: string): Promise<string[]> {
  const logs = (await readdir(dir)).filter((name) => name.endsWith(".log"));
  const traps = logs.map((name) => join(dir, `${name}.cleaned`));
  await Promise.all(traps.map((trap) => mkdir(trap)));
  return traps;
}

describe("topic page: an uncleanable partition and its retry", () => {
  const ui = useConsolePage({
    account: "Cleaner Tester",
    topics: [compactedTopic(TOPIC)],
    open: TOPIC,
  });

  it("shows why a pass failed with a Retry, and the partition leaves uncleanable once a pass succeeds", async () => {
    // A ratio can never be above 1, so nothing cleans on its own: only the passes asked for here run.
    await setConfig(ui.page, "min.cleanable.dirty.ratio", "1");
    await setConfig(ui.page, "segment.bytes", "200");
    const next = await produceUntilRolled(ui.page, 0);
    const blocks = ui.page.getByRole("list", { name: "Partition 0 segments" }).getByRole("button");
    expect(await blocks.count()).toBeGreaterThanOrEqual(2);
    const traps = await blockCleanedCopies(await partitionDir(TOPIC, 0));

    await showTab(ui.page, "Overview");
    const partitions = ui.page.getByRole("table", { name: "Partitions" });
    await partitions.getByRole("button", { name: "Clean now: a cleaner pass on partition 0" }).click();
    const notices = ui.page.getByRole("list", { name: "Uncleanable partitions" });
    const notice = notices.getByRole("listitem").filter({ hasText: "Partition 0 cannot be cleaned:" });
    await waitOrExplain(ui.page, notice, "uncleanable-notice");
    expect(await notice.textContent()).toContain("EISDIR");
    expect(await notice.textContent()).toContain("1 pass has failed");
    expect(await partitions.getByRole("row", { name: /^0 / }).textContent()).toContain("Uncleanable");
    await notice.scrollIntoViewIfNeeded();
    await saveScreenshot(ui.page, "topic-uncleanable");
    await showTab(ui.page, "Segments & cleaner");
    await ui.page
      .getByRole("table", { name: "Cleaner runs" })
      // The result badge opens a disclosure with the pass's error.
      .locator("summary", { hasText: "Failed" })
      .first()
      .waitFor();
    const bar = ui.page.getByRole("list", { name: "Partition 0 segments" });
    const heightBefore = (await bar.boundingBox())?.height;

    await Promise.all(traps.map((trap) => rm(trap, { recursive: true })));
    await showTab(ui.page, "Overview");
    await notice.getByRole("button", { name: "Retry: a cleaner pass on partition 0" }).click();
    await notices.waitFor({ state: "detached", timeout: 30_000 });
    await partitions.getByRole("row", { name: /^0 / }).getByText("Healthy").waitFor();
    // The forced pass cleaned the closed segment: the bar shows it clean, at the same height.
    await showTab(ui.page, "Segments & cleaner");
    await bar.locator('button[data-state="clean"]').first().waitFor({ timeout: 15_000 });
    expect((await bar.boundingBox())?.height).toBe(heightBefore);
    await saveScreenshot(ui.page, "topic-uncleanable-retried");

    // The pass removed superseded values of the three keys: reading from the start shows the gaps.
    await showTab(ui.page, "Messages");
    await searchMessages(ui.page, { select: { "Start from": "earliest" } });
    const messages = messagesTable(ui.page);
    const gaps = await messages.getByText(/compacted away\.$/).allTextContents();
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps[0]).toMatch(/^Offsets? \d+(–\d+)? (was|were) compacted away\.$/);
    const offsets = await shownOffsets(ui.page);
    expect(offsets.length).toBeLessThan(next);
  }, 90_000);
});
