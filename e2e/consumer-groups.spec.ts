import type { Consumer, ConsumerConfig, Kafka } from "kafkajs";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import {
  callTrpc,
  saveScreenshot,
  saveScreenshotsAtWidths,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { kafkaFromProperties } from "./kafka-key";
import { bodyRows } from "./page-parts";
import { uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("ledger");
const REST_GROUP = "billing-rest";
const KAFKA_GROUP = "billing-kafka";
/** A kafkajs group that commits, then stops: its lag grows as records arrive. */
const LAG_GROUP = "billing-kafka-lag";
/** The groups page refreshes this often (group-list.tsx). */
const REFRESH_MS = 5_000;
const TEN_MINUTES = 10 * 60_000;
/** The first record's timestamp, on a whole second (datetime-local inputs carry seconds). */
const OLD = Math.floor((Date.now() - TEN_MINUTES) / 1_000) * 1_000;

const groupsTable = (page: Page) => page.getByRole("table", { name: "Consumer groups" });
const groupLink = (page: Page, group: string) =>
  groupsTable(page).getByRole("link", { name: group, exact: true });

/** The group's details, on its own page. */
function groupCard(page: Page, group: string): Locator {
  return page.getByRole("region", { name: group, exact: true });
}

/** The group's page: from its name in the table when the list is open, else by its URL. */
async function openGroup(page: Page, group: string): Promise<Locator> {
  const card = groupCard(page, group);
  const path = `/consumer-groups/${group}`;
  if (new URL(page.url()).pathname !== path) {
    if (new URL(page.url()).pathname === "/consumer-groups") {
      await waitOrExplain(page, groupLink(page, group), `groups-row-${group}`);
      await groupLink(page, group).click();
      await page.waitForURL(`**${path}`);
    } else await page.goto(path);
  }
  await card.waitFor();
  return card;
}

/** A group's row in the table of every group (the list page): its cells after the name, as shown. */
async function groupCells(page: Page, group: string): Promise<string[]> {
  if (new URL(page.url()).pathname !== "/consumer-groups") await page.goto("/consumer-groups");
  const row = groupsTable(page)
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: group, exact: true }) });
  await row.waitFor();
  return row.getByRole("cell").allTextContents();
}

/**
 * A group's positions on TOPIC from its per-partition table, one line a partition in words
 * ("Partition 0: at offset 0, 3 behind (10 min)"), so the assertions read as the positions do.
 */
async function positionLines(card: Locator, group: string): Promise<string[]> {
  const table = card.getByRole("table", { name: `Partitions of ${group} on ${TOPIC}` });
  if ((await table.count()) === 0) return [];
  const rows = await bodyRows(table);
  return rows.map(([partition, committed, , lag, lagTime]) => {
    const behind =
      lag === "Caught up" ? "caught up" : `${lag?.replace(/ records?$/, "")} behind (${lagTime})`;
    return `Partition ${partition}: at offset ${committed}, ${behind}`;
  });
}

/** Previews a reset of REST_GROUP on TOPIC and answers the preview's rows (partition, now, after, lag after). */
async function previewReset(form: Locator, to: string, offset?: string): Promise<string[][]> {
  await form.getByLabel("Move to").selectOption(to);
  if (offset !== undefined) await form.getByLabel("Offset").fill(offset);
  await form.getByRole("button", { name: "Preview reset" }).click();
  const preview = form.getByRole("table", { name: `Reset preview of ${REST_GROUP}` });
  await preview.waitFor();
  return bodyRows(preview);
}

async function applyReset(card: Locator, form: Locator, moved: string, position0: RegExp): Promise<void> {
  await form.getByRole("button", { name: "Apply reset" }).click();
  await form.getByRole("status").filter({ hasText: moved }).waitFor();
  await expect.poll(async () => (await positionLines(card, REST_GROUP))[0]).toMatch(position0);
}

/** An open group's headline facts (Protocol, Lag, Oldest unread, Last commit) by their terms. */
async function groupFacts(page: Page, group: string): Promise<Record<string, string>> {
  const pairs = await groupCard(page, group)
    .locator("dl")
    .first()
    .locator(":scope > div")
    .evaluateAll((divs) =>
      divs.map((d) => [d.children[0]?.textContent ?? "", d.children[1]?.textContent ?? ""]),
    );
  return Object.fromEntries(pairs);
}

describe("consumer groups page: every group of the tenant, its lag, reset and delete", () => {
  const ui = useConsolePage({
    account: "Groups Person",
    topics: [{ name: TOPIC, partitions: 2, cleanupPolicy: "compact" }],
  });
  const consumers: Consumer[] = [];
  /** Kafka clients for the group's members, one client id each (the members table shows it). */
  let kafkaFor: (clientId: string) => Kafka;
  /**
   * A kafkajs member of a group reading the topic from the beginning (disconnected after the file
   * unless the test does it first); `seen()` counts the records it consumed.
   */
  async function joinLedger(clientId: string, config: ConsumerConfig) {
    const consumer = kafkaFor(clientId).consumer(config);
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    let seen = 0;
    await consumer.run({
      eachMessage: async () => {
        seen++;
      },
    });
    return { consumer, seen: () => seen };
  }

  beforeAll(async () => {
    const records = [0, 0, 0, 1].map((partition, i) => ({
      partition,
      key: { type: "string", data: `k${i}` },
      value: { type: "string", data: `v${i}` },
      timestamp: OLD + i * 2_000,
    }));
    expect(await callTrpc(ui.page, "records.produce", { topic: TOPIC, records })).toBe(200);
    // Tombstones kept one minute: a group ten minutes behind is past that.
    expect(
      await callTrpc(ui.page, "topics.alterConfigs", {
        topic: TOPIC,
        set: { "delete.retention.ms": 60_000 },
      }),
    ).toBe(200);
    expect(
      await callTrpc(ui.page, "consumerGroups.commitOffsets", {
        group: REST_GROUP,
        offsets: [
          { topic: TOPIC, partition: 0, offset: 0 },
          { topic: TOPIC, partition: 1, offset: 1 },
        ],
      }),
    ).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.disconnect()));
  });

  it("lists a REST group from the navigation, its positions in words and its lag past tombstone expiry", async () => {
    await ui.page.goto("/topics");
    await ui.page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: "Consumer groups" })
      .click();
    await ui.page.getByRole("heading", { name: "Consumer groups", level: 1 }).waitFor();
    // The table row: protocol, state, members, lag in records and in time, trend, tombstones, last commit.
    const cells = await groupCells(ui.page, REST_GROUP);
    expect(cells.slice(0, 5)).toEqual(["REST", "—", "—", "3 records", expect.stringMatching(/^1[01] min$/)]);
    expect(cells[6]).toBe("Past tombstone expiry: may have missed deletes");
    const card = await openGroup(ui.page, REST_GROUP);
    // The group's own URL.
    expect(new URL(ui.page.url()).pathname).toBe(`/consumer-groups/${REST_GROUP}`);
    expect(await card.textContent()).toContain("REST consumer (offsets committed over HTTP)");
    const onTopic = card.getByRole("region", { name: `${REST_GROUP} on ${TOPIC}` });
    const lines = await positionLines(card, REST_GROUP);
    expect(lines[0]).toMatch(/^Partition 0: at offset 0, 3 behind \(1[01] min\)$/);
    expect(lines[1]).toBe("Partition 1: at offset 1, caught up");
    expect(await onTopic.textContent()).toContain("Past tombstone expiry: may have missed deletes");
    expect(await card.textContent()).toContain("3 records");
    const overflow = await saveScreenshotsAtWidths(ui.page, "consumer-groups");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("draws the lag trend from the samples the workers store, there at once after a reload", async () => {
    // The partitions' owner writes the group's lag every few seconds into the minute's sample; a
    // reload then shows it straight from the API, with nothing sampled by this page.
    await expect
      .poll(
        async () => {
          await ui.page.reload();
          return (await groupCells(ui.page, REST_GROUP))[5];
        },
        { timeout: 45_000, interval: 1_000 },
      )
      .toMatch(/^(One sample so far: 3 records behind|Steady at 3 records over \d+ min)$/);
    const card = await openGroup(ui.page, REST_GROUP);
    const chart = card.getByRole("figure", { name: `Lag of ${REST_GROUP} over the last hour` });
    await chart.waitFor();
    expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(1);
    expect(await card.getByRole("heading", { name: /^Lag over the last hour: / }).textContent()).toMatch(
      /3 records/,
    );
    await saveScreenshotsAtWidths(ui.page, "consumer-groups-lag-trend");
  });

  it("previews a reset to a time without moving the group, then applies it", async () => {
    const card = await openGroup(ui.page, REST_GROUP);
    await card.getByText("Reset offsets").click();
    const form = card.getByRole("form", { name: `Reset offsets of ${REST_GROUP}` });
    await form.getByLabel("Move to").selectOption("timestamp");
    // Partition 0's records are stamped OLD, +2 s, +4 s; partition 1's one +6 s.
    const at = await ui.page.evaluate((ms) => {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, OLD + 3_000);
    await form.getByLabel("Time (local)").fill(at);
    await form.getByRole("button", { name: "Preview reset" }).click();
    const preview = form.getByRole("table", { name: `Reset preview of ${REST_GROUP}` });
    await waitOrExplain(ui.page, preview, "groups-reset-preview");
    const rows = await preview
      .getByRole("row")
      .evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual([
      ["0", "0", "2", "1 record"],
      ["1", "1", "0", "1 record"],
    ]);
    // Nothing moved yet.
    const positions = () => positionLines(card, REST_GROUP);
    expect((await positions())[0]).toMatch(/^Partition 0: at offset 0,/);
    await form.getByRole("button", { name: "Apply reset" }).click();
    await form.getByRole("status").filter({ hasText: "partition 0 to offset 2" }).waitFor();
    await expect.poll(async () => (await positions())[0]).toMatch(/^Partition 0: at offset 2, 1 behind/);
  });

  it("previews and applies resets to the earliest, the latest and a chosen offset", async () => {
    const card = await openGroup(ui.page, REST_GROUP);
    const form = card.getByRole("form", { name: `Reset offsets of ${REST_GROUP}` });
    // After the time reset partition 0 is at 2 of 3, partition 1 at 0 of 1; each step starts where
    // the one before left the group. A chosen offset moves every partition there, kept within its
    // log: partition 1 ends at 1.
    const ends = [3, 1];
    let at = [2, 0];
    const steps = [
      { to: "earliest", moveTo: [0, 0] },
      { to: "latest", moveTo: [3, 1] },
      { to: "offset", offset: "1", moveTo: [1, 1] },
    ];
    const records = (n: number) => `${n} record${n === 1 ? "" : "s"}`;
    for (const { to, offset, moveTo } of steps) {
      const lag = ends.map((end, p) => end - moveTo[p]!);
      expect(await previewReset(form, to, offset)).toEqual(
        moveTo.map((o, p) => [String(p), String(at[p]), String(o), records(lag[p]!)]),
      );
      const moved = moveTo.map((o, p) => `partition ${p} to offset ${o}`).join(", ");
      const behind = lag[0] === 0 ? "caught up$" : `${lag[0]} behind`;
      await applyReset(card, form, moved, new RegExp(`^Partition 0: at offset ${moveTo[0]}, ${behind}`));
      at = moveTo;
    }
    expect((await groupCells(ui.page, REST_GROUP))[3]).toBe("2 records");
  });

  it("refuses a reset to an offset that is not a number, in its own words", async () => {
    const card = await openGroup(ui.page, REST_GROUP);
    const form = card.getByRole("form", { name: `Reset offsets of ${REST_GROUP}` });
    // A group's page opens with the reset form folded away.
    if (!(await form.isVisible())) await card.getByText("Reset offsets", { exact: true }).click();
    await form.getByLabel("Move to").selectOption("offset");
    await form.getByLabel("Offset").fill("two");
    await form.getByRole("button", { name: "Preview reset" }).click();
    await waitForNotice(form, "alert", "Enter the offset to move to: a whole number, 0 or more.");
    expect(await form.getByRole("table").count()).toBe(0);
  });

  it("shows a Kafka consumer's group as coordinated, and refuses to delete it while it is active", async () => {
    await ui.page.goto("/api-keys");
    const keyForm = ui.page.getByRole("form", { name: "Create an API key" });
    await keyForm.getByLabel("Key name").fill("groups-app");
    await keyForm.getByRole("button", { name: "Create key" }).click();
    const secret = await ui.page.getByLabel("New API key secret").inputValue();
    const block = ui.page
      .getByRole("region", { name: "Kafka client settings for this key" })
      .getByRole("figure", { name: "librdkafka and kcat properties" });
    await waitOrExplain(ui.page, block, "groups-kafka-settings");
    kafkaFor = kafkaFromProperties((await block.locator("pre").textContent()) ?? "", secret);
    const first = await joinLedger("ledger-reader-1", { groupId: KAFKA_GROUP });
    await expect.poll(first.seen, { timeout: 30_000 }).toBe(4);

    await ui.page.goto("/consumer-groups");
    const card = await openGroup(ui.page, KAFKA_GROUP);
    await expect
      .poll(async () => card.textContent(), { timeout: 20_000 })
      .toContain("Kafka group, coordinated by worker");
    await card.getByRole("button", { name: "Delete group" }).click();
    const dialog = ui.page.getByRole("dialog");
    await dialog.getByRole("button", { name: `Delete ${KAFKA_GROUP}` }).click();
    await waitForNotice(dialog, "alert", "Kafka refuses to delete a group that is still active");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await groupCard(ui.page, KAFKA_GROUP).count()).toBe(1);
  });

  it("shows the Kafka group's state, protocol and generation, and each member's partitions in words", async () => {
    await joinLedger("ledger-reader-2", { groupId: KAFKA_GROUP });

    const card = await openGroup(ui.page, KAFKA_GROUP);
    const members = card.getByRole("table", { name: `Members of ${KAFKA_GROUP}` });
    // The page refreshes every few seconds; the rebalance settles with one partition each.
    const rows = () => bodyRows(members);
    await expect
      .poll(async () => ((await members.count()) === 0 ? [] : (await rows()).map((r) => r[4])), {
        timeout: 40_000,
      })
      .toEqual(expect.arrayContaining([`${TOPIC}: 0`, `${TOPIC}: 1`]));
    const facts = Object.fromEntries(
      await card
        .getByLabel(`Membership of ${KAFKA_GROUP}`)
        .locator("div")
        .evaluateAll((divs) => divs.map((d) => [d.children[0]?.textContent, d.children[1]?.textContent])),
    );
    expect(facts).toMatchObject({
      State: "Stable",
      "Group protocol": "consumer / RoundRobinAssigner",
      Members: "2",
    });
    expect(Number(facts.Generation)).toBeGreaterThan(0);
    const table = await rows();
    expect(table.map((r) => r[2]).sort()).toEqual(["ledger-reader-1", "ledger-reader-2"]);
    for (const r of table) {
      expect(r[0]).toMatch(/^ledger-reader-[12]-/);
      expect(r[1]).toBe("—");
      expect(r[3]).toMatch(/127\.0\.0\.1/);
    }
    // One leader, marked.
    expect(table.filter((r) => r[0]?.includes("Leader"))).toHaveLength(1);
    // The table says the same; a REST group has no members to show, and says why.
    expect((await groupCells(ui.page, KAFKA_GROUP)).slice(0, 3)).toEqual(["Kafka", "Stable", "2"]);
    expect(await (await openGroup(ui.page, REST_GROUP)).textContent()).toContain(
      "No members: REST clients commit offsets over HTTP.",
    );
    const overflow = await saveScreenshotsAtWidths(ui.page, "consumer-groups-members");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("deletes a group that no coordinator holds", async () => {
    const card = await openGroup(ui.page, REST_GROUP);
    await card.getByRole("button", { name: "Delete group" }).click();
    await ui.page
      .getByRole("dialog")
      .getByRole("button", { name: `Delete ${REST_GROUP}` })
      .click();
    // The open dialog hides the page from role queries: wait for it to close before looking.
    await ui.page.getByRole("dialog").waitFor({ state: "detached" });
    await expect.poll(() => card.count()).toBe(0);
    await ui.page.goto("/consumer-groups");
    await waitOrExplain(ui.page, groupLink(ui.page, KAFKA_GROUP), "groups-after-delete");
    expect(await groupLink(ui.page, REST_GROUP).count()).toBe(0);
  });

  it("keeps only the rows in view in the page, however many groups there are", async () => {
    const FILLERS = 1_200;
    // Every filler group caught up on partition 1 (one record), committed through the console's API.
    const committed = await ui.page.evaluate(
      async ({ topic, count }) => {
        let ok = 0;
        const commit = async (i: number) => {
          const res = await fetch("/api/trpc/consumerGroups.commitOffsets", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              group: `filler-${String(i).padStart(4, "0")}`,
              offsets: [{ topic, partition: 1, offset: 1 }],
            }),
          });
          if (res.ok) ok++;
        };
        for (let i = 0; i < count; i += 12) {
          await Promise.all(Array.from({ length: Math.min(12, count - i) }, (_, j) => commit(i + j)));
        }
        return ok;
      },
      { topic: TOPIC, count: FILLERS },
    );
    expect(committed).toBe(FILLERS);
    await ui.page.reload();
    const table = groupsTable(ui.page);
    // The fillers and the Kafka group.
    await expect
      .poll(() => table.getAttribute("aria-rowcount"), { timeout: 30_000 })
      .toBe(String(FILLERS + 2));
    expect(await table.locator("tbody tr").count()).toBeLessThan(100);
    // Sorted by name: the Kafka group first, then the fillers; the last one is drawn once scrolled to.
    await table.evaluate((el) => {
      const scroller = el.parentElement!;
      scroller.scrollTop = scroller.scrollHeight;
    });
    const last = table.locator(`tbody tr[aria-rowindex='${FILLERS + 2}']`);
    await expect.poll(() => last.count()).toBe(1);
    expect(await last.getByRole("link").textContent()).toBe(`filler-${String(FILLERS - 1).padStart(4, "0")}`);
    expect(await table.locator("tbody tr").count()).toBeLessThan(100);
    // Sorting by lag from the keyboard: the header's button, and aria-sort says which way.
    const lagHeader = table.getByRole("columnheader", { name: "Lag", exact: true });
    await lagHeader.getByRole("button").focus();
    await ui.page.keyboard.press("Enter");
    await expect.poll(() => lagHeader.getAttribute("aria-sort")).toMatch(/^(ascending|descending)$/);
    await saveScreenshot(ui.page, "consumer-groups-many");
  }, 120_000);

  it("shows a kafkajs group's committed lag in records and time within one refresh, and the compliance page names it behind an erasure tombstone", async () => {
    const reader = await joinLedger("ledger-lag-reader", { groupId: LAG_GROUP, maxWaitTimeInMs: 100 });
    await expect.poll(reader.seen, { timeout: 30_000 }).toBe(4);
    // Stopped with its position at the end of both partitions (kafkajs commits after each batch).
    await reader.consumer.disconnect();
    await ui.page.goto("/consumer-groups");
    const card = await openGroup(ui.page, LAG_GROUP);
    const positions = () => positionLines(card, LAG_GROUP);
    await expect
      .poll(positions, { timeout: 20_000 })
      .toEqual(["Partition 0: at offset 3, caught up", "Partition 1: at offset 1, caught up"]);
    expect((await groupFacts(ui.page, LAG_GROUP)).Lag).toBe("0 records");

    // Two records stamped three hours ago land behind the group's position while the page is open.
    const threeHoursAgo = Date.now() - 3 * 3_600_000;
    const late = [4, 5].map((i) => ({
      partition: 0,
      key: { type: "string", data: `k${i}` },
      value: { type: "string", data: `v${i}` },
      timestamp: threeHoursAgo + i,
    }));
    expect(await callTrpc(ui.page, "records.produce", { topic: TOPIC, records: late })).toBe(200);
    // Within one refresh of the page (plus the request it makes).
    await expect
      .poll(
        async () => {
          const facts = await groupFacts(ui.page, LAG_GROUP);
          return [facts.Lag, /^3 h( \d+ min)?$/.test(facts["Oldest unread"] ?? "")];
        },
        { timeout: REFRESH_MS + 3_000, interval: 250 },
      )
      .toEqual(["2 records", true]);
    expect((await positions())[0]).toMatch(/^Partition 0: at offset 3, 2 behind \(3 h( \d+ min)?\)$/);
    await saveScreenshot(ui.page, "consumer-groups-kafka-lag");

    // An erasure of k0 writes a tombstone after the group's position: the compliance page names it.
    expect(
      await callTrpc(ui.page, "erasure.create", { keys: [{ type: "string", data: "k0" }], topics: [TOPIC] }),
    ).toBe(200);
    await ui.page.goto("/compliance");
    const behind = ui.page
      .getByRole("list", { name: "Consumer groups behind tombstones" })
      .getByRole("listitem")
      .filter({ hasText: LAG_GROUP });
    await waitOrExplain(ui.page, behind.first(), "compliance-kafka-group-behind");
    expect(await behind.first().textContent()).toMatch(
      new RegExp(`^${LAG_GROUP} has not read past the erasure tombstone in ${TOPIC} / [01]`),
    );
    await saveScreenshot(ui.page, "compliance-kafka-group-behind");
  });
});
