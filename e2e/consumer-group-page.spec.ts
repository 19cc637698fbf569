import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { callTrpc, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { bodyRows } from "./page-parts";
import { showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("positions");
const GROUP = "invoices-rest";
const PARTITIONS = 3;
/** Records a partition: offsets 0…4. */
const PER_PARTITION = 5;

const card = (page: Page) => page.getByRole("region", { name: GROUP, exact: true });
const partitionTable = (page: Page) =>
  card(page).getByRole("table", { name: `Partitions of ${GROUP} on ${TOPIC}` });

/** The per-partition table's rows: partition, committed, log end, lag, lag in time, member, client, host. */
async function partitionRows(page: Page): Promise<string[][]> {
  return partitionTable(page)
    .getByRole("row")
    .evaluateAll((trs) =>
      trs.slice(1).map((tr) => [...tr.children].slice(0, 8).map((c) => c.textContent ?? "")),
    );
}

const committed = async (page: Page) => (await partitionRows(page)).map((r) => r[1]);

async function previewRows(form: Locator): Promise<string[][]> {
  const preview = form.getByRole("table", { name: `Reset preview of ${GROUP}` });
  await preview.waitFor();
  return bodyRows(preview);
}

describe("a consumer group's own page: linked, per partition, reset one partition", () => {
  const ui = useConsolePage({
    account: "Positions Person",
    topics: [{ name: TOPIC, partitions: PARTITIONS, cleanupPolicy: "compact" }],
  });

  beforeAll(async () => {
    const records = Array.from({ length: PARTITIONS * PER_PARTITION }, (_, i) => ({
      partition: i % PARTITIONS,
      key: { type: "string", data: `k${i}` },
      value: { type: "string", data: `v${i}` },
    }));
    expect(await callTrpc(ui.page, "records.produce", { topic: TOPIC, records })).toBe(200);
    expect(
      await callTrpc(ui.page, "consumerGroups.commitOffsets", {
        group: GROUP,
        offsets: Array.from({ length: PARTITIONS }, (_, partition) => ({
          topic: TOPIC,
          partition,
          offset: 1,
        })),
      }),
    ).toBe(200);
  });

  it("opens a group from the list at its own URL, with a row per partition", async () => {
    await ui.page.goto("/consumer-groups");
    const link = ui.page
      .getByRole("table", { name: "Consumer groups" })
      .getByRole("link", { name: GROUP, exact: true });
    await waitOrExplain(ui.page, link, "group-page-link");
    await link.click();
    await ui.page.waitForURL(`**/consumer-groups/${GROUP}`);
    await ui.page.getByRole("heading", { name: GROUP, level: 1 }).waitFor();
    await waitOrExplain(ui.page, partitionTable(ui.page), "group-page-partitions");
    const rows = await partitionRows(ui.page);
    expect(rows.map((r) => r.slice(0, 4))).toEqual(
      Array.from({ length: PARTITIONS }, (_, p) => [String(p), "1", String(PER_PARTITION), "4 records"]),
    );
    // A REST group has no members: the member, client and host cells say so.
    expect(rows.every((r) => r[5] === "—" && r[6] === "—" && r[7] === "—")).toBe(true);
    const overflow = await saveScreenshotsAtWidths(ui.page, "consumer-group-page");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("opens the same group from its URL alone, and from the topic's Consumers tab", async () => {
    const fresh = await ui.page.context().newPage();
    await fresh.goto(`/consumer-groups/${GROUP}`);
    await waitOrExplain(fresh, partitionTable(fresh), "group-page-direct");
    expect((await partitionRows(fresh)).map((r) => r[0])).toEqual(["0", "1", "2"]);
    await fresh.close();

    await ui.page.goto(`/topics/${TOPIC}`);
    await showTab(ui.page, "Consumers");
    await ui.page.getByRole("link", { name: GROUP, exact: true }).click();
    await ui.page.waitForURL(`**/consumer-groups/${GROUP}`);
    await partitionTable(ui.page).waitFor();
  });

  it("says a group that does not exist does not exist", async () => {
    await ui.page.goto("/consumer-groups/no-such-group");
    await ui.page
      .getByRole("alert")
      .filter({ hasText: "There is no consumer group no-such-group" })
      .waitFor();
    await ui.page.goto(`/consumer-groups/${GROUP}`);
    await partitionTable(ui.page).waitFor();
  });

  it("resets one partition to an explicit offset after a preview, and moves only that partition", async () => {
    await partitionTable(ui.page).getByRole("button", { name: "Reset partition 1" }).click();
    const form = card(ui.page).getByRole("form", { name: `Reset offsets of ${GROUP}` });
    await form.waitFor();
    // The row's button chooses its partition in the form (an effect: wait for it).
    await expect.poll(() => form.getByLabel("Partitions", { exact: true }).inputValue()).toBe("1");
    await form.getByLabel("Move to").selectOption("offset");
    await form.getByLabel("Offset").fill("3");
    await form.getByRole("button", { name: "Preview reset" }).click();
    expect(await previewRows(form)).toEqual([["1", "1", "3", "2 records"]]);
    // A preview moves nothing.
    expect(await committed(ui.page)).toEqual(["1", "1", "1"]);
    await form.getByRole("button", { name: "Apply reset" }).click();
    await form.getByRole("status").filter({ hasText: "partition 1 to offset 3" }).waitFor();
    await expect.poll(() => committed(ui.page)).toEqual(["1", "3", "1"]);
    expect((await partitionRows(ui.page))[1]?.[3]).toBe("2 records");
    await saveScreenshotsAtWidths(ui.page, "consumer-group-page-reset");
  });

  it("resets one partition to a time: the log end when nothing is that recent", async () => {
    await partitionTable(ui.page).getByRole("button", { name: "Reset partition 2" }).click();
    const form = card(ui.page).getByRole("form", { name: `Reset offsets of ${GROUP}` });
    // The row's button chooses its partition in the form (an effect: wait for it).
    await expect.poll(() => form.getByLabel("Partitions", { exact: true }).inputValue()).toBe("2");
    await form.getByLabel("Move to").selectOption("timestamp");
    // An hour from now: no record is stamped at or after it, so the partition moves to its log end.
    const later = await ui.page.evaluate(() => {
      const d = new Date(Date.now() + 3_600_000);
      const two = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    });
    await form.getByLabel("Time (local)").fill(later);
    await form.getByRole("button", { name: "Preview reset" }).click();
    expect(await previewRows(form)).toEqual([["2", "1", String(PER_PARTITION), "0 records"]]);
    await form.getByRole("button", { name: "Apply reset" }).click();
    await expect.poll(() => committed(ui.page)).toEqual(["1", "3", String(PER_PARTITION)]);
  });
});
