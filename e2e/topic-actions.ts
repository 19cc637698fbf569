import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createPrisma } from "@lastword/db";
import type { Page } from "playwright-core";
import { expect, inject } from "vitest";
import { waitOrExplain } from "./console-session";

/**
 * `prefix` and six random hex digits: a topic name no other spec's topic has. A name is unique only
 * within a tenant, and each spec signs up tenants of its own, but they all share one database, where
 * a lookup by name alone (waitForLeaseRenewal and partitionDir below, a spec's own Prisma reads)
 * could otherwise find another spec's topic.
 */
export function uniqueTopicName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}

export type TopicTabName = "Overview" | "Messages" | "Consumers" | "Segments & cleaner" | "Configs";

/** Opens one of the topic page's tabs (a no-op when it is already the active one). */
export async function showTab(page: Page, name: TopicTabName): Promise<void> {
  const tab = page.getByRole("tablist", { name: "Topic sections" }).getByRole("tab", { name, exact: true });
  if ((await tab.getAttribute("aria-selected")) !== "true") await tab.click();
  await page.getByRole("tabpanel", { name, exact: true }).waitFor();
}

/**
 * Produces one record through the topic page's form and returns the sentence it answers with.
 * `timestamp` is a datetime-local value in the browser's time zone; without it the field is left
 * empty and the server stamps the record.
 */
export async function produce(
  page: Page,
  record: {
    key: string;
    value?: string;
    json?: boolean;
    tombstone?: boolean;
    timestamp?: string;
    offset: number;
  },
): Promise<string | null> {
  await showTab(page, "Messages");
  const form = page.getByRole("form", { name: "Produce a record" });
  await form.getByLabel("Key", { exact: true }).fill(record.key);
  await form.getByLabel("Value format").selectOption(record.json ? "json" : "string");
  await form.getByLabel("Tombstone: send a null value").setChecked(record.tombstone ?? false);
  if (!record.tombstone) await form.getByLabel("Value", { exact: true }).fill(record.value ?? "");
  await form.getByLabel("Timestamp (local)").fill(record.timestamp ?? "");
  // Enter in a text field submits: the form works from the keyboard alone.
  await form.getByLabel("Key", { exact: true }).press("Enter");
  const status = form.getByRole("status").filter({ hasText: `at offset ${record.offset}.` });
  await waitOrExplain(page, status, `produce-offset-${record.offset}`);
  return status.textContent();
}

/**
 * Saves a topic config through the topic page's form and waits for the table to say it is set.
 * `value` is Kafka's (ms, bytes): the form's unit is set to match before it is typed.
 */
export async function setConfig(page: Page, name: string, value: string): Promise<void> {
  await showTab(page, "Configs");
  const form = page.getByRole("form", { name: "Change a config" });
  await form.getByLabel("Config").selectOption(name);
  if (name.endsWith(".ms") || name.endsWith(".bytes")) {
    await form.getByLabel(`${name} unit`).selectOption(name.endsWith(".ms") ? "ms" : "B");
  }
  await form.getByLabel("New value").fill(value);
  // The saved answer, then the table's "set" badge: a config set before (a preset's) has its badge
  // already, so the badge alone would not say this change landed.
  const saved = page.waitForResponse((response) => response.url().includes("/topics.alterConfigs"));
  await form.getByRole("button", { name: "Save change" }).click();
  expect((await saved).status(), `saving ${name}=${value}`).toBe(200);
  await page
    .getByRole("table", { name: "Configs" })
    .getByRole("row", { name: new RegExp(`^${name.replaceAll(".", "\\.")} `) })
    .getByRole("cell", { name: "set" })
    .waitFor();
}

/**
 * Produces values of one key until partition 0's segment bar shows more than one segment, so the
 * closed segment holds a superseded value for a pass to remove (200-byte segments hold two).
 * The form and the bar live in different tabs, so each round switches between them; it ends on
 * the segments tab.
 */
export async function produceUntilRolled(page: Page, firstOffset: number, maxRecords = 20): Promise<number> {
  const bar = page.getByRole("list", { name: "Partition 0 segments" });
  let offset = firstOffset;
  // The worker reopens the log with a new segment.bytes at its next lease renewal; until then
  // appends still go to the old active segment.
  await waitForLeaseRenewal(decodeURIComponent(new URL(page.url()).pathname.split("/")[2] ?? ""));
  const segmentCount = async () => {
    await showTab(page, "Segments & cleaner");
    await bar.waitFor();
    return bar.getByRole("button").count();
  };
  for (; offset < firstOffset + maxRecords && (await segmentCount()) < 2; offset++) {
    await produce(page, { key: "sku-0", value: `v${offset}`, offset });
  }
  return offset;
}

/**
 * Leaves partition 0 with a closed segment that holds a superseded value, and no pass cleaning it
 * on its own: a ratio can never be above 1, so only the passes a test asks for run. Answers the
 * next offset to produce at.
 */
export async function rollWithoutCleaning(page: Page): Promise<number> {
  await setConfig(page, "min.cleanable.dirty.ratio", "1");
  await setConfig(page, "segment.bytes", "200");
  return produceUntilRolled(page, 0);
}

/**
 * Waits until the worker owning partition 0 of `topicName` has renewed its lease after this call
 * began. A renewal is where the worker reads the topic's configs again and reopens the log with
 * them, so configs saved before the call govern the appends after it.
 */
export async function waitForLeaseRenewal(topicName: string): Promise<void> {
  const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
  try {
    const leaseEnd = async () => {
      const partition = await prisma.partition.findFirstOrThrow({
        where: { topic: { name: topicName }, index: 0 },
        select: { leaseExpiresAt: true },
      });
      return partition.leaseExpiresAt?.getTime() ?? 0;
    };
    const before = await leaseEnd();
    await expect.poll(leaseEnd, { timeout: 30_000, interval: 100 }).toBeGreaterThan(before);
  } finally {
    await prisma.$disconnect();
  }
}

/** The directory the worker keeps a partition's segment files in (organization/topic id/index). */
export async function partitionDir(topicName: string, partition: number): Promise<string> {
  const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
  try {
    const topic = await prisma.topic.findFirstOrThrow({ where: { name: topicName } });
    return join(inject("dataDir"), topic.organizationId, topic.id, String(partition));
  } finally {
    await prisma.$disconnect();
  }
}
