import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { clippedElements, seriousViolations } from "./accessibility";
import {
  callTrpc,
  newAccount,
  queryTrpc,
  saveScreenshot,
  saveScreenshotsAtWidths,
  submitAuthForm,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { openForm } from "./page-parts";
import { showTab, type TopicTabName, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("parity");
const GROUP = "parity-billing";
const TEN_MINUTES = 10 * 60_000;

/** Every console page, and what shows that its own content is on screen. */
const PAGES: { name: string; path: string; ready: (page: Page) => Locator; tab?: TopicTabName }[] = [
  {
    name: "overview",
    path: "/overview",
    ready: (p) => p.getByRole("table", { name: "Usage against limits" }),
  },
  { name: "topics", path: "/topics", ready: (p) => p.getByRole("table", { name: "Topics" }) },
  {
    name: "topic",
    path: `/topics/${TOPIC}`,
    ready: (p) => p.getByRole("button", { name: "Clean now" }).first(),
  },
  {
    name: "topic-segments",
    path: `/topics/${TOPIC}`,
    tab: "Segments & cleaner",
    ready: (p) => p.getByRole("list", { name: "Partition 0 segments" }),
  },
  {
    name: "topic-consumers",
    path: `/topics/${TOPIC}`,
    tab: "Consumers",
    ready: (p) => p.getByText(GROUP).first(),
  },
  {
    name: "consumer-groups",
    path: "/consumer-groups",
    ready: (p) => p.getByRole("table", { name: "Consumer groups" }),
  },
  {
    name: "transactions",
    path: "/transactions",
    ready: (p) => p.getByRole("heading", { name: "Transactions", level: 1 }),
  },
  { name: "schemas", path: "/schemas", ready: (p) => p.getByRole("heading", { name: "Schemas", level: 1 }) },
  { name: "api-keys", path: "/api-keys", ready: (p) => p.getByRole("form", { name: "Create an API key" }) },
  {
    name: "compliance",
    path: "/compliance",
    ready: (p) => p.getByRole("table", { name: "Erasure requests" }),
  },
  { name: "members", path: "/members", ready: (p) => p.getByRole("table", { name: "Members" }) },
  { name: "settings", path: "/settings", ready: (p) => p.getByRole("table", { name: "Tenant limits" }) },
];

async function openPage(page: Page, entry: (typeof PAGES)[number]): Promise<void> {
  await page.goto(entry.path);
  if (entry.tab) await showTab(page, entry.tab);
  await waitOrExplain(page, entry.ready(page), `parity-${entry.name}`);
}

/** Whether every child of the header's row sits on its first line. */
function headerInOneRow(page: Page): Promise<boolean> {
  return page.locator("header > div").evaluate((row) => {
    const tops = [...row.children]
      .filter((c) => c.getBoundingClientRect().height > 0)
      .map((c) => c.getBoundingClientRect().top);
    const first = row.getBoundingClientRect().top;
    return tops.every((top) => top - first < 24);
  });
}

describe("console parity: layout, keyboard and accessibility, overview, first run", () => {
  const ui = useConsolePage({
    account: "Parity Person",
    topics: [{ name: TOPIC, partitions: 2, cleanupPolicy: "compact" }],
  });

  it("fills a group, a lagging position and an open erasure request for the pages to show", async () => {
    const { page } = ui;
    const old = Date.now() - TEN_MINUTES;
    const records = [0, 0, 1].map((partition, i) => ({
      partition,
      key: { type: "string", data: `k${i}` },
      value: { type: "string", data: `v${i}` },
      timestamp: old + i * 1_000,
    }));
    expect(await callTrpc(page, "records.produce", { topic: TOPIC, records })).toBe(200);
    // Tombstones outlive a minute only; a group ten minutes behind may have missed them. The
    // compaction lag keeps the erasure request open (tombstoned, not yet purged) for the test.
    expect(
      await callTrpc(page, "topics.alterConfigs", {
        topic: TOPIC,
        set: { "delete.retention.ms": 60_000, "min.compaction.lag.ms": 86_400_000 },
      }),
    ).toBe(200);
    expect(
      await callTrpc(page, "consumerGroups.commitOffsets", {
        group: GROUP,
        offsets: [{ topic: TOPIC, partition: 0, offset: 0 }],
      }),
    ).toBe(200);
    expect(
      await callTrpc(page, "erasure.create", { keys: [{ type: "string", data: "k0" }], topics: [TOPIC] }),
    ).toBe(200);
  });

  it("clips no table, button or link at 1280, 1440 and 1920 px, and keeps the header in one row", async () => {
    const { page } = ui;
    const found: Record<string, unknown> = {};
    for (const width of [1280, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const entry of PAGES) {
        await openPage(page, entry);
        const clipped = await clippedElements(page);
        if (clipped.page > 0 || clipped.tables.length > 0 || clipped.controls.length > 0) {
          found[`${entry.name}@${width}`] = clipped;
        }
        if (!(await headerInOneRow(page))) found[`${entry.name}@${width} header`] = "wraps";
      }
      await saveScreenshot(page, `parity-topic-${width}`);
    }
    expect(found).toEqual({});
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("uses the width: at 1440 px the content column is wider than 1280 px", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1440, height: 900 });
    await openPage(page, PAGES[0]!);
    const width = await page.locator("main").evaluate((main) => main.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(1280);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("has no serious or critical axe-core violation on any page, at 1440 and 390 px", async () => {
    const { page } = ui;
    const found: Record<string, unknown> = {};
    const apiReference = {
      name: "api-reference",
      path: "/api-reference",
      ready: (p: Page) => p.locator(".lastword-api-reference").getByText("Lastword API").first(),
    };
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const entry of [...PAGES, apiReference]) {
        await openPage(page, entry);
        const violations = await seriousViolations(page);
        if (violations.length > 0) found[`${entry.name}@${width}`] = violations;
      }
    }
    expect(found).toEqual({});
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("skips to the content from the first Tab, and shows where focus is", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/topics");
    await page.getByRole("table", { name: "Topics" }).waitFor();
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    await saveScreenshot(page, "parity-skip-link");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("content");
    // The next Tab lands inside the page, past the header's links.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true);

    // Every focused control draws an outline (globals.css :focus-visible), checked over a run of Tabs.
    const unmarked: string[] = [];
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press("Tab");
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        const marked =
          (style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0) ||
          style.boxShadow !== "none";
        return { marked, what: `${el.tagName} ${el.textContent?.trim().slice(0, 30)}` };
      });
      if (focus && !focus.marked) unmarked.push(focus.what);
    }
    expect(unmarked).toEqual([]);
  });

  it("shows the overview: usage against limits, lagging groups and open erasure requests, each linking to its page", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/");
    await page.waitForURL("**/overview");
    const usage = page.getByRole("table", { name: "Usage against limits" });
    await waitOrExplain(page, usage, "overview-usage");
    const usageRow = (name: string) =>
      usage.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
    const partitions = usageRow("Partitions");
    expect((await partitions.getByRole("cell").allTextContents())[0]).toBe("2");
    expect(await partitions.getByRole("meter", { name: "Partitions used" }).count()).toBe(1);
    expect(await usage.getByRole("rowheader").allTextContents()).toEqual([
      "Partitions",
      "Storage on the workers' disks",
      "Storage in object storage",
      "Produced today (REST)",
      "Produced today (Kafka)",
      "Fetched today (Kafka)",
      "Kafka connections open",
      "Kafka clients seen in the last day",
    ]);

    // The two produce paths count apart (REST's key, value and header bytes; Kafka's inflated
    // batches) against the one produce quota they share. This tenant produced over REST only.
    const [restUsed, restLimit] = await usageRow("Produced today (REST)").getByRole("cell").allTextContents();
    const [kafkaUsed, kafkaLimit] = await usageRow("Produced today (Kafka)")
      .getByRole("cell")
      .allTextContents();
    expect(restUsed).not.toBe("0 B");
    expect(kafkaUsed).toBe("0 B");
    expect(restLimit).toMatch(/^\d+(\.\d)? (B|[KMGT]iB)\/s, shared with Kafka$/);
    expect(kafkaLimit).toBe(restLimit!.replace("shared with Kafka", "shared with REST"));

    // Open connections are as fresh as the workers' heartbeats they were summed from, and say so.
    const connections = usageRow("Kafka connections open");
    expect((await connections.getByRole("cell").allTextContents())[0]).toMatch(
      /^0 \(as of \d{1,2}:\d{2}:\d{2}\s[AP]M UTC, from \d+ workers?\)$/,
    );

    const lagging = page.getByRole("table", { name: "Groups past tombstone expiry" });
    await waitOrExplain(page, lagging, "overview-lagging");
    const groupRow = lagging
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: GROUP, exact: true }) });
    expect((await groupRow.getByRole("cell").allTextContents()).slice(0, 1)).toEqual([TOPIC]);

    // The request filed above is open until the worker proves the key purged, which this worker
    // may do within seconds: the card lists exactly the requests erasure.list calls open.
    const deadlines = page.getByRole("region", { name: "Erasure deadlines" });
    const requests = deadlines.getByRole("table", { name: "Open erasure requests" });
    await expect
      .poll(
        async () => {
          await page.reload();
          await deadlines
            .getByText(/No erasure request is open|left|overdue/)
            .first()
            .waitFor();
          const shown = (await requests.count()) === 0 ? 0 : (await requests.getByRole("row").count()) - 1;
          return shown === (await openRequests(page)).length;
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(true);
    const open = await openRequests(page);

    // The dirtiest-topics card answers either way (its order is proven in the API's tests).
    await page
      .getByRole("region", { name: "Most dirty bytes" })
      .getByText(/No compacted topic has dirty bytes|dirty ratio/)
      .first()
      .waitFor();
    expect(await saveScreenshotsAtWidths(page, "overview")).toEqual({ 1440: 0, 390: 0 });

    await groupRow.getByRole("link", { name: TOPIC }).click();
    await page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await page.goBack();
    // The group's own page (consumer-groups/[group]).
    await groupRow.getByRole("link", { name: GROUP, exact: true }).click();
    await page.waitForURL(`**/consumer-groups/${encodeURIComponent(GROUP)}`);
    await page.goBack();
    if (open.length > 0) {
      await requests.getByRole("link").first().click();
      await page.waitForURL(`**/compliance/requests/${open[0]}`);
      await page.goBack();
    }
    await usage.getByRole("link", { name: "Partitions" }).click();
    await page.waitForURL("**/topics");
  });
  it("opens a topic's warnings with the keyboard, where they were only a hover before", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1440, height: 900 });
    // retention.bytes on a delete-policy topic draws a warning on the topics list (it applies per partition).
    const events = `${TOPIC}-events`;
    expect(
      await callTrpc(page, "topics.create", {
        name: events,
        partitions: 2,
        configs: { "cleanup.policy": "delete", "retention.bytes": 1000 },
      }),
    ).toBe(200);
    await page.goto("/topics");
    const row = page
      .getByRole("table", { name: "Topics" })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: events, exact: true }) });
    const summary = row.locator("summary");
    await waitOrExplain(page, summary, "parity-warning-summary");
    const details = row.locator("details");
    expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await summary.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    const item = details.getByRole("listitem").first();
    expect(await item.isVisible()).toBe(true);
    expect(await item.textContent()).toContain("retention.bytes applies per partition");
    expect(await saveScreenshotsAtWidths(page, "parity-warning-open")).toEqual({ 1440: 0, 390: 0 });
  });
});

describe("first run: sign-up names the organization, the verification link, renaming", () => {
  const ui = useConsolePage();

  it("asks for the organization's name, says where the verification link went, resends it and confirms once verified", async () => {
    const { page } = ui;
    const person = newAccount("Ada First");
    const organization = `Acme ${randomBytes(2).toString("hex")}`;
    await page.goto("/sign-up");
    await page.getByLabel("Name", { exact: true }).fill(person.name);
    await page.getByLabel("Organization name").fill(organization);
    await page.getByLabel("Email", { exact: true }).fill(person.email);
    await page.getByLabel("Password", { exact: true }).fill(person.password);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await saveScreenshotsAtWidths(page, "first-run-sign-up")).toEqual({ 1440: 0, 390: 0 });
    await submitAuthForm(page, "Create account");

    const banner = page.getByRole("region", { name: "Email verification" });
    await banner.waitFor();
    expect(await banner.textContent()).toContain(`Verification link sent to ${person.email}`);
    // The e2e web server has no SMTP: the link is in its log.
    expect(await banner.textContent()).toContain("the link is in the web server's log");
    await headerShowsOrganization(page, organization);
    expect(await saveScreenshotsAtWidths(page, "first-run-unverified")).toEqual({ 1440: 0, 390: 0 });

    await banner.getByRole("button", { name: "Resend" }).click();
    await banner.getByRole("status").filter({ hasText: "A new link is on its way." }).waitFor();
    await expect.poll(() => verificationLinks(person.email), { timeout: 10_000 }).toHaveLength(2);
    const [, latest] = await verificationLinks(person.email);
    await page.goto(latest!);
    await page.waitForURL("**/overview?verified=1");
    await page
      .getByRole("status")
      .filter({ hasText: `Your email address ${person.email} is verified.` })
      .waitFor();
    expect(await page.getByRole("region", { name: "Email verification" }).count()).toBe(0);
    expect(await saveScreenshotsAtWidths(page, "first-run-verified")).toEqual({ 1440: 0, 390: 0 });
  });

  it("renames the organization from Settings, and the header follows", async () => {
    const { page } = ui;
    const { form, field } = await openForm(page, "/settings", "Organization", "Organization name");
    await field.fill("   ");
    await form.getByRole("button", { name: "Rename" }).click();
    await form.getByText("Enter the organization's name.").waitFor();
    await field.fill("Renamed Co");
    await form.getByRole("button", { name: "Rename" }).click();
    await form.getByRole("status").filter({ hasText: "Renamed to Renamed Co." }).waitFor();
    await headerShowsOrganization(page, "Renamed Co");
    expect(await saveScreenshotsAtWidths(page, "first-run-renamed")).toEqual({ 1440: 0, 390: 0 });
  });
});

/** The ids of the tenant's open erasure requests (received, tombstoned, at risk), soonest deadline first. */
async function openRequests(page: Page): Promise<string[]> {
  const { requests } = await queryTrpc<{ requests: { id: string; status: string }[] }>(page, "erasure.list", {
    limit: 100,
  });
  return requests.filter((r) => ["received", "tombstoned", "at-risk"].includes(r.status)).map((r) => r.id);
}

/** Waits for the header's organization menu to name `name` (the layout redraws after a change). */
async function headerShowsOrganization(page: Page, name: string): Promise<void> {
  const menu = page.getByRole("button", { name: /^Organization/ }).first();
  await expect.poll(() => menu.textContent(), { timeout: 10_000 }).toContain(name);
}

/**
 * The verification links the web server logged for `email`, oldest first (it has no SMTP, so the
 * log mailer writes each message to its log: global-setup puts web.log beside the data dir).
 */
async function verificationLinks(email: string): Promise<string[]> {
  const log = await readFile(join(dirname(inject("dataDir")), "web.log"), "utf8");
  const blocks = log.split("[mail] ").filter((block) => block.startsWith(`to=${email} `));
  return blocks.map((block) => /https?:\/\/\S+verify-email\S+/.exec(block)?.[0] ?? "").filter(Boolean);
}
