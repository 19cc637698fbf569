import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newAccount, saveScreenshot, signUp, useConsolePage, waitOrExplain } from "./console-session";
import { messagesTable, searchMessages, shownOffsets } from "./message-browser-actions";
import { produce, setConfig, showTab, waitForLeaseRenewal } from "./topic-actions";

// A new user's story in one browser session, as a person would walk it. Configs are in bytes and
// seconds so it runs in about a minute: 200-byte segments roll every few records, a dirty ratio of
// 0.01 makes every closed segment cleanable at once, and a 2 s max compaction lag forces the pass
// an erasure waits for.
const TOPIC = "customer-profiles";
const STORY_CONFIGS = [
  ["min.cleanable.dirty.ratio", "0.01"],
  ["max.compaction.lag.ms", "2000"],
  ["segment.bytes", "200"],
] as const;
const KEYS = ["customer-1", "customer-2", "customer-3"] as const;
const TOMBSTONED_KEY = "customer-2";
const ERASED_KEY = "customer-3";

/**
 * Partition 0's segment bar as the page shows it: each block's state, the records in all of them and
 * the log's end (both from the blocks' labels). The tab first shows its cached layout, so a caller
 * waiting for a layout checks `end` to know it is looking at one taken after its last write.
 */
async function segmentBar(page: Page): Promise<{ states: string[]; records: number; end: number }> {
  await showTab(page, "Segments & cleaner");
  await page.getByRole("list", { name: "Partition 0 segments" }).waitFor();
  const blocks = await page
    .getByRole("list", { name: "Partition 0 segments" })
    .getByRole("button")
    .evaluateAll((buttons) =>
      buttons.map((b) => ({
        state: b.getAttribute("data-state") ?? "",
        label: b.getAttribute("aria-label") ?? "",
      })),
    );
  const records = blocks.reduce((sum, b) => sum + Number(/(\d+) records?/.exec(b.label)?.[1] ?? 0), 0);
  // "offsets 4–7" ends at 8; an empty active segment says "starts at 8".
  const end = Math.max(
    0,
    ...blocks.map((b) => {
      const range = /offsets \d+–(\d+)/.exec(b.label);
      return range ? Number(range[1]) + 1 : Number(/starts at (\d+)/.exec(b.label)?.[1] ?? 0);
    }),
  );
  return { states: blocks.map((b) => b.state), records, end };
}

/** Reads partition 0 from its earliest offset in the message browser. */
async function browseFromEarliest(page: Page) {
  await searchMessages(page, { select: { "Start from": "earliest" } });
  const messages = messagesTable(page);
  await waitOrExplain(page, messages, "story-browse");
  return messages;
}

describe("the console story: sign up to a cleaned, browsed, erased topic", () => {
  const ui = useConsolePage();
  let nextOffset = 0;

  it("signs up and creates a topic from the GDPR table preset", async () => {
    await signUp(ui.page, newAccount("Story Teller"));
    const form = ui.page.getByRole("form", { name: "Create a topic" });
    await form.getByLabel("Topic name").fill(TOPIC);
    await form.getByLabel("Preset").selectOption("gdpr-table");
    await form.getByRole("button", { name: "Create topic" }).click();
    // The created topic opens.
    await waitOrExplain(
      ui.page,
      ui.page.getByRole("heading", { name: TOPIC, level: 1 }),
      "story-topic-created",
    );
    await showTab(ui.page, "Configs");
    const policy = ui.page
      .getByRole("table", { name: "Configs" })
      .getByRole("row", { name: /^cleanup\.policy / });
    expect((await policy.getByRole("cell").allTextContents())[0]).toBe("compact");
    for (const [name, value] of STORY_CONFIGS) await setConfig(ui.page, name, value);
    await saveScreenshot(ui.page, "story-1-topic-created");
  });

  it("produces values and a tombstone, and watches a cleaner pass shrink the segment bar", async () => {
    // Values overwrite each other key by key, so a pass has something to remove. The worker takes
    // the new segment.bytes at its next lease renewal: wait for one, then keep producing until the
    // log has rolled twice.
    await waitForLeaseRenewal(TOPIC);
    for (let round = 0; round < 40 && (round < 6 || (await segmentBar(ui.page)).states.length < 3); round++) {
      const key = KEYS[round % KEYS.length] ?? "customer-1";
      await produce(ui.page, {
        key,
        value: `{"round":${round},"key":"${key}"}`,
        json: true,
        offset: nextOffset++,
      });
    }
    await produce(ui.page, { key: TOMBSTONED_KEY, tombstone: true, offset: nextOffset++ });
    // More values after the tombstone, so its segment closes and is cleaned too.
    for (let extra = 0; extra < 4; extra++) {
      await produce(ui.page, { key: "customer-1", value: `after ${extra}`, offset: nextOffset++ });
    }
    await saveScreenshot(ui.page, "story-2-produced");

    // Every closed segment clean and only the active one left to the writer, in a layout that has
    // every record produced: the pass has landed.
    await expect
      .poll(
        async () => {
          const { states, end } = await segmentBar(ui.page);
          return (
            end === nextOffset &&
            states.length > 1 &&
            states.at(-1) === "active" &&
            states.slice(0, -1).every((s) => s === "clean")
          );
        },
        { timeout: 45_000, interval: 500 },
      )
      .toBe(true);
    // The log still ends at nextOffset, but the bar holds fewer records: superseded values are gone.
    expect((await segmentBar(ui.page)).records).toBeLessThan(nextOffset);
    await showTab(ui.page, "Segments & cleaner");
    await ui.page.getByRole("list", { name: "Partition 0 segments" }).scrollIntoViewIfNeeded();
    await saveScreenshot(ui.page, "story-3-segment-bar-cleaned");
  }, 90_000);

  it("browses across the gaps compaction left, with the tombstone badged", async () => {
    const messages = await browseFromEarliest(ui.page);
    const gaps = messages.getByText(/compacted away\.$/);
    await gaps.first().waitFor();
    const offsets = await shownOffsets(ui.page);
    expect(offsets.length).toBeLessThan(nextOffset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    // Every hole between two shown offsets is announced, none silently skipped.
    const holes = offsets.slice(1).filter((offset, i) => offset !== (offsets[i] ?? 0) + 1).length;
    expect(await gaps.count()).toBeGreaterThanOrEqual(holes);
    expect(await messages.getByText("Tombstone (null)").count()).toBeGreaterThan(0);
    await saveScreenshot(ui.page, "story-4-browse-gaps");
  });

  it("files an erasure request for a key and sees it reach purged", async () => {
    await ui.page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: "Compliance" })
      .click();
    await ui.page.getByRole("heading", { name: "Compliance", level: 1 }).waitFor();
    const form = ui.page.getByRole("form", { name: "File an erasure request" });
    await form.getByLabel("Subject keys").fill(ERASED_KEY);
    await form.getByRole("checkbox", { name: TOPIC }).check();
    await form.getByRole("button", { name: "File request" }).click();
    await ui.page.waitForURL("**/compliance/requests/*");
    await waitOrExplain(
      ui.page,
      ui.page.getByTestId("request-status").filter({ hasText: /^(Purged|Tombstone expired|Closed)$/ }),
      "story-erasure-purged",
    );
    await saveScreenshot(ui.page, "story-5-erasure-purged");

    // Back on the topic, the erased key has no value left: only its tombstone remains.
    await ui.page.goto(`/topics/${TOPIC}`);
    const messages = await browseFromEarliest(ui.page);
    const erasedRows = messages.getByRole("row").filter({ hasText: ERASED_KEY });
    await erasedRows.first().waitFor();
    const values = await erasedRows.evaluateAll((rows) =>
      rows.map((row) => row.children[4]?.textContent ?? ""),
    );
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((value) => value === "Tombstone (null)")).toBe(true);
  }, 90_000);
});
