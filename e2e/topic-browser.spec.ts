import { randomUUID } from "node:crypto";
import { createPrisma } from "@lastword/db";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { waitForNotice } from "./console-notices";
import {
  newAccount,
  newConsolePage,
  saveScreenshot,
  signUp,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { messageCells, searchMessages, shownOffsets } from "./message-browser-actions";
import { produce, showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("catalog");

/** `at` as a datetime-local value in the browser's own time zone, to the second. */
function localDateTime(page: Page, at: number): Promise<string> {
  return page.evaluate((ms) => {
    const d = new Date(ms);
    const two = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }, at);
}

describe("topic page: reading records by time, by key and as a table", () => {
  const ui = useConsolePage({
    account: "Browser Tester",
    topics: [{ name: TOPIC, partitions: 1, cleanupPolicy: "compact" }],
    open: TOPIC,
  });
  /** The time the last three records are stamped with, five seconds after the first two. */
  let cut: number;

  beforeAll(async () => {
    // Stamped by the producer, a minute ago and five seconds later: the read by time has a fixed
    // picture without waiting for the clock to pass a second.
    cut = Math.floor(Date.now() / 1000) * 1000 - 55_000;
    const before = await localDateTime(ui.page, cut - 5_000);
    const after = await localDateTime(ui.page, cut);
    await produce(ui.page, { key: "k1", value: "v1", timestamp: before, offset: 0 });
    await produce(ui.page, { key: "k2", value: "v2", timestamp: before, offset: 1 });
    await produce(ui.page, { key: "k1", value: "v1b", timestamp: after, offset: 2 });
    await produce(ui.page, { key: "k3", value: "", timestamp: after, offset: 3 });
    await produce(ui.page, { key: "k2", tombstone: true, timestamp: after, offset: 4 });
  });

  it("starts a read at a time: the first message stamped then or later", async () => {
    await searchMessages(ui.page, {
      select: { "Start from": "timestamp" },
      fill: { "From time (local)": await localDateTime(ui.page, cut) },
    });
    expect(await shownOffsets(ui.page)).toEqual([2, 3, 4]);
    // An empty value and a tombstone are different things, and look it.
    expect((await messageCells(ui.page, 3))[3]).toBe("Empty value");
    expect((await messageCells(ui.page, 4))[3]).toBe("Tombstone (null)");
    await saveScreenshot(ui.page, "topic-browser-from-time");

    const later = await searchMessages(ui.page, {
      fill: { "From time (local)": await localDateTime(ui.page, Date.now() + 3_600_000) },
    });
    expect(later).toBe("Scanned 0 records to the end of the log; 0 shown.");
    await waitForNotice(ui.page, "status", "No message matches in what was scanned.");

    await searchMessages(ui.page, { select: { "Start from": "latest" } });
    expect(await shownOffsets(ui.page)).toEqual([0, 1, 2, 3, 4]);
  });

  it("finds a key: its latest value and every version, a deleted key and an unknown one", async () => {
    const form = ui.page.getByRole("form", { name: "Find a key" });
    const result = ui.page.getByRole("region", { name: "Find a key" });
    await form.getByLabel("Key", { exact: true }).fill("k1");
    await form.getByRole("button", { name: "Find key" }).click();
    await waitForNotice(result, "status", "“k1” lives in partition 0; its latest value is at offset 2.");
    const versions = result.getByRole("table", { name: "Versions of k1" });
    expect(await versions.getByRole("rowheader").allTextContents()).toEqual(["0", "2"]);
    expect(await versions.getByRole("row", { name: /^2 / }).textContent()).toContain("v1bLatest");

    await form.getByLabel("Key", { exact: true }).fill("k2");
    await form.getByRole("button", { name: "Find key" }).click();
    await result.getByRole("status").filter({ hasText: "its latest version is a tombstone" }).waitFor();
    const deleted = result.getByRole("table", { name: "Versions of k2" });
    expect(await deleted.getByRole("rowheader").allTextContents()).toEqual(["1", "4"]);
    expect(await deleted.getByRole("row", { name: /^4 / }).textContent()).toContain("Tombstone (null)");
    await saveScreenshot(ui.page, "topic-key-search");

    await form.getByLabel("Key", { exact: true }).fill("nobody");
    await form.getByRole("button", { name: "Find key" }).click();
    await result.getByRole("status").filter({ hasText: "holds no version of it." }).waitFor();
  });

  it("shows the latest value per key from the snapshot, deleted keys left out", async () => {
    const card = ui.page.getByRole("region", { name: "Latest value per key" });
    await card.getByRole("button", { name: "Show latest values" }).click();
    const table = card.getByRole("table", { name: "Latest value per key" });
    await waitOrExplain(ui.page, table, "latest-values");
    const rows = await table
      .getByRole("row")
      .evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(rows.map((cells) => [cells[0], cells[1], cells[3]]).sort()).toEqual([
      ["k1", "v1b", "2"],
      ["k3", "Empty value", "3"],
    ]);
    await card.getByRole("status").filter({ hasText: "Keys 1–2, the last of them." }).waitFor();
    expect(await card.getByRole("button", { name: "Next keys" }).isDisabled()).toBe(true);
    await card.scrollIntoViewIfNeeded();
    await saveScreenshot(ui.page, "topic-latest-values");
  });

  it("shows the compliance role a sentence instead of any record", async () => {
    const officer = newAccount("Compliance Officer");
    const officerPage = await newConsolePage(ui.browser);
    await signUp(officerPage, officer);
    // Membership as the members page's invitation would leave it, made directly so this spec
    // depends only on the topic pages; then the session switches to that organization.
    const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
    let organizationId: string;
    try {
      const topic = await prisma.topic.findFirstOrThrow({ where: { name: TOPIC } });
      const user = await prisma.user.findUniqueOrThrow({ where: { email: officer.email } });
      organizationId = topic.organizationId;
      await prisma.member.create({
        data: {
          id: randomUUID(),
          organizationId,
          userId: user.id,
          role: "compliance",
          createdAt: new Date(),
        },
      });
    } finally {
      await prisma.$disconnect();
    }
    const switched = await officerPage.evaluate(async (id) => {
      const res = await fetch("/api/auth/organization/set-active", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ organizationId: id }),
      });
      return res.status;
    }, organizationId);
    expect(switched).toBe(200);

    await officerPage.goto(`/topics/${TOPIC}`);
    await officerPage.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await showTab(officerPage, "Messages");
    const messages = officerPage.getByRole("region", { name: "Messages" });
    await waitOrExplain(
      officerPage,
      messages.getByRole("status").filter({ hasText: "Your role (compliance) cannot read records" }),
      "compliance-sentence",
    );
    // Metadata stays: partitions and segments.
    await showTab(officerPage, "Overview");
    await officerPage
      .getByRole("table", { name: "Partitions" })
      .getByRole("rowheader", { name: "0" })
      .waitFor();
    await showTab(officerPage, "Segments & cleaner");
    await officerPage.getByRole("list", { name: "Partition 0 segments" }).waitFor();
    await showTab(officerPage, "Messages");
    for (const form of ["Browse messages", "Find a key", "Produce a record", "Delete a key"]) {
      expect(await officerPage.getByRole("form", { name: form }).count(), form).toBe(0);
    }
    expect(await officerPage.getByRole("region", { name: "Latest value per key" }).count()).toBe(0);
    expect(await officerPage.getByRole("button", { name: /^Clean now/ }).count()).toBe(0);
    // No value reached the page in any form.
    const text = (await officerPage.locator("main").textContent()) ?? "";
    for (const value of ["v1b", "v2"]) expect(text).not.toContain(value);
    await saveScreenshot(officerPage, "topic-compliance");
    await officerPage.context().close();
  });
});
