import { createPrisma } from "@lastword/db";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  addMember,
  callTrpc,
  createTopic,
  launchChromium,
  newAccount,
  newConsolePage,
  saveScreenshot,
  saveScreenshotsAtWidths,
  signUp,
  waitOrExplain,
} from "./console-session";
import { produce, setConfig } from "./topic-actions";

const TOPIC = "customers";
// min.compaction.lag.ms of 40 days: its own configs hold an erased key's old values past a 30-day
// deadline (the worker overrides it for the key only when the deadline is that close).
const SLOW_TOPIC = "legacy-profiles";
const DAY_MS = 86_400_000;
// The subject of a request filed with a 2-second deadline: no proof takes less than two 5-second
// worker ticks (one to rewrite, one to prove), so it is at risk from filing and then fails.
const DOOMED_SUBJECT = "doomed-7";
const SUBJECT = "subject-42";
// Values the compliance role must never be shown, on any of its pages.
const VALUES = [
  "Ada Lovelace, 12 Analytical Street",
  "Ada Lovelace, moved to Difference Road",
  "kept-value-7",
  "Slow Subject, 1 Old Lane",
];
// The subject of the request that stays open: it has a value in the slow topic, which
// min.compaction.lag.ms protects for 40 days, so its purge waits (a key never written would be
// proven purged at once).
const SLOW_SUBJECT = "subject-slow";
// A consumer group that committed before the subject's records and never reads on: it misses the
// erasure tombstone, and the closed request keeps saying so.
const STALE_GROUP = "nightly-export";

/** Opens a subject's request from the compliance dashboard's list. */
async function openRequest(page: Page, subject: string) {
  await page.goto("/compliance");
  await page
    .getByRole("table", { name: "Erasure requests" })
    .getByRole("link", { name: `Request for ${subject}` })
    .click();
  await page.waitForURL("**/compliance/requests/*");
}

async function expectNoValues(page: Page) {
  const text = (await page.locator("main").textContent()) ?? "";
  for (const value of VALUES) expect(text).not.toContain(value);
}

/** Extends the open request's deadline to `until` (the form's local time) with `reason`. */
async function extendDeadline(page: Page, until: Date, reason: string): Promise<void> {
  const pad = (n: number) => String(n).padStart(2, "0");
  const local = `${until.getFullYear()}-${pad(until.getMonth() + 1)}-${pad(until.getDate())}T${pad(until.getHours())}:${pad(until.getMinutes())}`;
  const extend = page.getByRole("form", { name: "Extend the deadline" });
  await extend.getByLabel("New deadline").fill(local);
  await extend.getByLabel("Reason for the extension").fill(reason);
  await extend.getByRole("button", { name: "Extend deadline" }).click();
}
describe("compliance pages", () => {
  let browser: Browser;
  let officer: Page;
  let owner: Page;
  const officerAccount = newAccount("Compliance Officer");

  beforeAll(async () => {
    browser = await launchChromium();
    owner = await newConsolePage(browser);
    const ownerAccount = newAccount("Data Owner");
    await signUp(owner, ownerAccount);
    await createTopic(owner, { name: SLOW_TOPIC, partitions: 1, cleanupPolicy: "compact" });
    await owner.goto(`/topics/${SLOW_TOPIC}`);
    await owner.getByRole("heading", { name: SLOW_TOPIC, level: 1 }).waitFor();
    await produce(owner, { key: SLOW_SUBJECT, value: VALUES[3], offset: 0 });
    await setConfig(owner, "min.compaction.lag.ms", String(40 * DAY_MS));
    await createTopic(owner, { name: TOPIC, partitions: 1, cleanupPolicy: "compact" });
    // A created topic opens its own page.
    await owner.waitForURL(`**/topics/${TOPIC}`);
    // Configs in seconds: a tombstone older than 2 s forces a pass, and is kept 3 s after it.
    await setConfig(owner, "max.compaction.lag.ms", "2000");
    await setConfig(owner, "delete.retention.ms", "3000");
    await produce(owner, { key: SUBJECT, value: VALUES[0], offset: 0 });
    await produce(owner, { key: SUBJECT, value: VALUES[1], offset: 1 });
    await produce(owner, { key: "keep-7", value: VALUES[2], offset: 2 });
    expect(
      await callTrpc(owner, "consumerGroups.commitOffsets", {
        group: STALE_GROUP,
        offsets: [{ topic: TOPIC, partition: 0, offset: 0 }],
      }),
    ).toBe(200);

    officer = await addMember(owner, browser, officerAccount, "compliance", ownerAccount.name);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("shows the empty dashboard and flags a topic whose configs cannot meet the deadline", async () => {
    await officer.goto("/compliance");
    await officer.getByRole("heading", { name: "Compliance", level: 1 }).waitFor();
    await officer.getByRole("status").filter({ hasText: "No erasure request has been filed yet." }).waitFor();
    const preflight = officer.getByRole("table", { name: "Topic deadline preflight" });
    const row = preflight.getByRole("row", { name: new RegExp(`^${TOPIC} `) });
    await row.waitFor();
    // customers meets a 30-day deadline; a 40-day min.compaction.lag.ms does not, and the page
    // names the config change that fixes it.
    expect(await row.textContent()).toContain("Meets the deadline");
    const slow = await preflight.getByRole("row", { name: new RegExp(`^${SLOW_TOPIC} `) }).textContent();
    expect(slow).toContain("Cannot meet the deadline");
    expect(slow).toMatch(/min\.compaction\.lag\.ms=\d+/);
    await expectNoValues(officer);
  });

  it("files a request from the form and watches it reach purged, with evidence and no record values", async () => {
    const form = officer.getByRole("form", { name: "File an erasure request" });
    await form.getByLabel("Subject keys").fill(SUBJECT);
    await form.getByRole("checkbox", { name: TOPIC }).check();
    await form.getByRole("button", { name: "Check the deadline" }).click();
    await form
      .getByRole("status", { name: "Deadline check" })
      .filter({ hasText: "Every topic in scope meets this deadline" })
      .waitFor();
    await form.getByRole("checkbox", { name: SLOW_TOPIC }).check();
    await form.getByRole("button", { name: "Check the deadline" }).click();
    const check = form.getByRole("table", { name: "Deadline check per topic" });
    await check
      .getByRole("row", { name: new RegExp(`^${SLOW_TOPIC} `) })
      .filter({ hasText: "Cannot meet" })
      .waitFor();
    await form.getByRole("checkbox", { name: SLOW_TOPIC }).uncheck();
    await form.getByLabel("Requester").fill("dpo@example.com");
    await form.getByLabel("Notes").fill("Art. 17 request from the e2e suite");
    // Keyboard: the submit button is reachable and pressing it files the request.
    await form.getByRole("button", { name: "File request" }).focus();
    await officer.keyboard.press("Enter");
    await officer.waitForURL("**/compliance/requests/*");
    await officer.getByRole("heading", { name: "Erasure request", level: 1 }).waitFor();

    const status = officer.getByTestId("request-status");
    await waitOrExplain(
      officer,
      status.filter({ hasText: /^(Purged|Tombstone expired|Closed)$/ }),
      "erasure-request-purged",
    );
    const stages = officer.getByRole("list", { name: "Stages" });
    await stages
      .getByRole("listitem")
      .filter({ hasText: /^Purged/ })
      .filter({ hasNotText: "Not yet" })
      .waitFor();
    const evidence = officer.getByRole("table", { name: "Purge evidence" });
    await evidence.waitFor();
    expect(await evidence.getByRole("row").nth(1).textContent()).toContain("No earlier record of the key");
    // Each evidence row names the key as text, and the page leads with the verdict per key and topic.
    expect(await evidence.getByRole("row").nth(1).textContent()).toContain(SUBJECT);
    const verdicts = officer.getByRole("list", { name: "Verdicts" });
    expect(await verdicts.textContent()).toMatch(
      new RegExp(
        `^${SUBJECT}: 0 values left in ${TOPIC}, 1 tier checked \\(disk\\) in 1 partition, last proof `,
      ),
    );
    // Each audit event names who did it: the officer who filed, the system for the rest.
    const events = officer.getByRole("list", { name: "Audit events" });
    expect(await events.getByRole("listitem").first().textContent()).toContain(
      `by ${officerAccount.name} <${officerAccount.email}>`,
    );
    expect(await evidence.locator("li").first().textContent()).toMatch(/sha256 [0-9a-f]{64}/);
    // Purged long before its deadline: the deadline is still ahead, and said so.
    const deadline =
      (await officer.getByRole("region", { name: "Deadline", exact: true }).textContent()) ?? "";
    expect(deadline).not.toContain("The deadline was");
    expect(deadline).toMatch(/The deadline is .*(left|from now)/);
    await saveScreenshotsAtWidths(officer, "compliance-request-deadline-ahead");
    const bar = officer.getByRole("img", { name: /^Deadline timeline:/ });
    expect(await bar.getAttribute("aria-label")).toMatch(/purged at \d+ % of the window/);
    await expectNoValues(officer);
    await saveScreenshot(officer, "compliance-request-purged");

    await officer.getByRole("link", { name: "← Compliance" }).click();
    const requests = officer.getByRole("table", { name: "Erasure requests" });
    // The list shows its cached rows first and refetches; the row catches up within a refresh.
    await requests
      .getByRole("row", { name: new RegExp(SUBJECT) })
      .filter({ hasText: /Purged|Tombstone expired|Closed/ })
      .waitFor({ timeout: 10_000 });
    await expectNoValues(officer);
    await saveScreenshot(officer, "compliance-dashboard");
    await officer.emulateMedia({ colorScheme: "dark" });
    await saveScreenshot(officer, "compliance-dashboard-dark");
    await officer.emulateMedia({ colorScheme: "light" });
  }, 90_000);

  it("keeps a group that missed the tombstone flagged after the request closes, with what it missed", async () => {
    await openRequest(officer, SUBJECT);
    // The tombstone goes one delete.retention.ms (3 s) after the pass that purged, on a later tick.
    await officer
      .getByTestId("request-status")
      .filter({ hasText: /^Closed$/ })
      .waitFor({ timeout: 60_000 });
    // Nothing is pending any more, so no group is "behind"; the one that missed it stays named.
    expect(await officer.getByRole("region", { name: "Consumer groups behind a tombstone" }).count()).toBe(0);
    const missed = officer.getByRole("table", { name: "Consumer groups that missed a tombstone" });
    await missed.waitFor();
    const rows = await missed
      .getByRole("row")
      .evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent)));
    // The subject's tombstone went in after offsets 0–2; the group still stood at 0.
    expect(rows.map((cells) => cells.slice(0, 4))).toEqual([[STALE_GROUP, `${TOPIC} / 0`, "3", "0"]]);
    expect(rows[0]?.[4]).not.toBe("—");
    await expectNoValues(officer);
    await saveScreenshot(officer, "compliance-request-missed-groups");
  }, 90_000);

  it("extends an open request's deadline with its reason", async () => {
    await officer.goto("/compliance");
    const form = officer.getByRole("form", { name: "File an erasure request" });
    await form.getByLabel("Subject keys").fill(SLOW_SUBJECT);
    await form.getByRole("checkbox", { name: SLOW_TOPIC }).check();
    await form.getByRole("button", { name: "File request" }).click();
    await officer.waitForURL("**/compliance/requests/*");
    // The preflight said the slow topic cannot meet it: at risk from filing, with the reason and
    // the fix, and the page says what the purge waits for and until when.
    await officer.getByTestId("request-status").filter({ hasText: "At risk" }).waitFor();
    expect(await officer.getByRole("alert").filter({ hasText: "Filed at risk" }).textContent()).toMatch(
      new RegExp(
        `^Filed at risk: ${SLOW_TOPIC} — min\\.compaction\\.lag\\.ms \\(40 d\\).* Fix: min\\.compaction\\.lag\\.ms=\\d+\\.$`,
      ),
    );
    const waiting = officer.getByRole("list", { name: "Waiting for" });
    await waitOrExplain(officer, waiting.getByRole("listitem").first(), "erasure-waiting-for");
    expect(await waiting.textContent()).toMatch(
      new RegExp(
        `^${SLOW_TOPIC} / 0 \\(${SLOW_SUBJECT}\\): min\\.compaction\\.lag\\.ms \\(40 d\\) protects the key's records until its targeted rewrite — by \\w{3} \\d+, \\d{4}`,
      ),
    );
    await saveScreenshot(officer, "compliance-request-waiting-for");
    await extendDeadline(
      officer,
      new Date(Date.now() + 45 * 86_400_000),
      "Complex request: backups to search too",
    );
    // The request's facts list the extension (a plain text match would also find the textarea,
    // whose text React keeps equal to what was typed until the extension succeeds).
    await waitOrExplain(
      officer,
      officer.getByRole("definition").filter({ hasText: "Complex request: backups to search too" }),
      "deadline-extended",
    );
    await waitOrExplain(
      officer,
      officer.getByRole("list", { name: "Audit events" }).getByText("Deadline extended"),
      "deadline-extended-audit",
    );
    expect(
      await officer.getByRole("img", { name: /^Deadline timeline:/ }).getAttribute("aria-label"),
    ).toMatch(/\(4[45] d( \d+ h)? left\)/);
    // More time takes it out of "at risk".
    await officer.getByTestId("request-status").filter({ hasText: "Tombstoned" }).waitFor();
  });

  it("flags a doomed request at risk at filing, fails it at its deadline, and extends it from its failed page", async () => {
    await owner.goto(`/topics/${TOPIC}`);
    await owner.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await produce(owner, { key: DOOMED_SUBJECT, value: "doomed value", offset: 4 });
    expect(
      await callTrpc(officer, "erasure.create", {
        keys: [{ type: "string", data: DOOMED_SUBJECT }],
        topics: [TOPIC],
        deadlineAt: new Date(Date.now() + 2_000).toISOString(),
      }),
    ).toBe(200);
    await openRequest(officer, DOOMED_SUBJECT);
    const status = officer.getByTestId("request-status");
    await waitOrExplain(officer, status.filter({ hasText: /^Failed$/ }), "doomed-request-failed");
    // It was at risk from the moment it was filed, before it failed; the reason gives the time
    // for people.
    const events = officer.getByRole("list", { name: "Audit events" });
    const actions = await events.getByRole("listitem").allTextContents();
    const riskAt = actions.findIndex((a) => a.includes("Marked at risk"));
    expect(riskAt).toBe(2);
    expect(actions.findIndex((a) => a.includes("Marked failed"))).toBeGreaterThan(riskAt);
    expect(await officer.getByRole("alert").first().textContent()).toMatch(
      /^The deadline \(\d+ \w{3} \d{4}, \d\d:\d\d:\d\d UTC\) passed before every partition was verified purged\.$/,
    );
    await officer.getByRole("button", { name: "Re-verify" }).waitFor();
    await saveScreenshot(officer, "compliance-request-failed");
    await extendDeadline(officer, new Date(Date.now() + 7 * DAY_MS), "Controller agreed a new date");
    // Back to work with more time: the worker proves it purged on its next tick.
    await waitOrExplain(
      officer,
      status.filter({ hasText: /^(Purged|Tombstone expired|Closed)$/ }),
      "doomed-request-extended-purged",
    );
    expect(await events.textContent()).toContain("Deadline extended");
  }, 90_000);

  it("exports the request's evidence as CSV", async () => {
    await openRequest(officer, SUBJECT);
    const download = officer.waitForEvent("download");
    await officer.getByRole("button", { name: "Export evidence (CSV)" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
  });

  it("lists the audit trail with its actors named, verifies the chain, and names the first broken link after a row is edited", async () => {
    await officer.goto("/compliance");
    await officer.getByRole("link", { name: "Open the audit trail" }).click();
    await officer.waitForURL("**/compliance/audit");
    const table = officer.getByRole("table", { name: "Audit events" });
    await table.waitFor();
    const filter = officer.getByRole("form", { name: "Filter audit events" });
    await filter.getByLabel("Action").fill("erasure.request.created");
    await filter.getByRole("button", { name: "Filter" }).click();
    const rows = table.locator("tbody tr");
    await expect
      .poll(async () => (await rows.allTextContents()).every((r) => r.includes("erasure.request.created")))
      .toBe(true);
    expect(await table.textContent()).toContain(`${officerAccount.name} <${officerAccount.email}>`);

    await officer.getByRole("button", { name: "Verify chain" }).click();
    await officer
      .getByRole("status")
      .filter({ hasText: /^The chain is intact: \d+ events verified\.$/ })
      .waitFor();

    // Someone edits an audit row behind the application's back.
    const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
    try {
      const me = await prisma.user.findUniqueOrThrow({ where: { email: officerAccount.email } });
      const event = await prisma.auditEvent.findFirstOrThrow({
        where: { actorType: "user", actorId: me.id, action: "erasure.request.created" },
        orderBy: { seq: "asc" },
      });
      await prisma.$transaction([
        prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER "AuditEvent_append_only"`),
        prisma.$executeRawUnsafe(
          `UPDATE "AuditEvent" SET "createdAt" = "createdAt" - interval '1 day' WHERE "id" = $1`,
          event.id,
        ),
        prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER "AuditEvent_append_only"`),
      ]);
      await officer.getByRole("button", { name: "Verify chain" }).click();
      const broken = officer.getByRole("alert").filter({ hasText: "The chain is broken" });
      await broken.waitFor();
      expect(await broken.textContent()).toMatch(
        new RegExp(`^The chain is broken at event #${event.seq}: erasure\\.request\\.created of `),
      );
      await saveScreenshot(officer, "compliance-audit-broken-chain");
    } finally {
      await prisma.$disconnect();
    }
  });
});
