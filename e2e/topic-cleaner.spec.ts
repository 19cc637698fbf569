import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { eventually } from "@lastword/db/testing";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { formatBytes } from "../apps/web/src/lib/partition-stats";
import { queryTrpc, saveScreenshot, useTopicPage, waitOrExplain } from "./console-session";
import { messagesTable, searchMessages, shownOffsets } from "./message-browser-actions";
import { partitionDir, rollWithoutCleaning, showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("ledger");

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
  const ui = useTopicPage("Cleaner Tester", TOPIC);

  it("shows why a pass failed with a Retry, and the partition leaves uncleanable once a pass succeeds", async () => {
    const next = await rollWithoutCleaning(ui.page);
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

const MEASURED = uniqueTopicName("measured");

interface Run {
  partition: number;
  status: string;
  reclaimedBytes: number | null;
  bytesBefore: number | null;
  bytesAfter: number | null;
}

/** Partition 0's closed segments' bytes and its active segment's, as the segment bars get them. */
async function barBytes(page: Page): Promise<{ closed: number; active: number }> {
  const layout = await queryTrpc<{ segments: { state: string; sizeBytes: number }[] }>(
    page,
    "topics.segments",
    {
      topic: MEASURED,
      partition: 0,
    },
  );
  const sum = (active: boolean) =>
    layout.segments.filter((s) => (s.state === "active") === active).reduce((n, s) => n + s.sizeBytes, 0);
  return { closed: sum(false), active: sum(true) };
}

describe("topic page: the cleaner-runs table and the segment bars count the same bytes", () => {
  const ui = useTopicPage("Cleaner Measurer", MEASURED);

  it("a pass's closed-segment bytes before and after are the bars' closed bytes before and after it", async () => {
    const { page } = ui;
    await rollWithoutCleaning(page);
    const before = await barBytes(page);
    expect(before.closed).toBeGreaterThan(0);
    // The bar's total tells closed and active apart, in the terms the runs table uses.
    await showTab(page, "Segments & cleaner");
    const total = page.locator(`span[title$="in the active one"]`).first();
    await expect
      .poll(() => total.getAttribute("title"), { timeout: 15_000 })
      .toBe(
        `${formatBytes(before.closed)} in closed segments, ${formatBytes(before.active)} in the active one`,
      );

    await showTab(page, "Overview");
    await page
      .getByRole("table", { name: "Partitions" })
      .getByRole("button", { name: "Clean now: a cleaner pass on partition 0" })
      .click();
    const run = await eventually("a completed pass in the cleaner runs", 30_000, async () => {
      const { runs } = await queryTrpc<{ runs: Run[] }>(page, "topics.cleanerRuns", {
        topic: MEASURED,
        limit: 5,
      });
      return runs.find((r) => r.status === "completed");
    });
    const after = await barBytes(page);
    // Nothing was produced meanwhile: the run's before is what the bars showed before it, its
    // after what they show now, and the active segment (no pass touches it) is unchanged.
    expect(run.bytesBefore).toBe(before.closed);
    expect(run.bytesAfter).toBe(after.closed);
    expect(after.active).toBe(before.active);
    expect(run.reclaimedBytes).toBe(before.closed - after.closed);
    expect(run.reclaimedBytes).toBeGreaterThan(0);

    await showTab(page, "Segments & cleaner");
    const row = page
      .getByRole("table", { name: "Cleaner runs" })
      .getByRole("row")
      .filter({ hasText: "completed" });
    await waitOrExplain(page, row.first(), "cleaner-bytes-run");
    expect(await row.first().textContent()).toContain(
      `closed segments ${formatBytes(before.closed)} → ${formatBytes(after.closed)}`,
    );
    await expect
      .poll(() => total.getAttribute("title"), { timeout: 15_000 })
      .toBe(
        `${formatBytes(after.closed)} in closed segments, ${formatBytes(after.active)} in the active one`,
      );
    await saveScreenshot(page, "cleaner-bytes-agree");
  }, 90_000);
});
