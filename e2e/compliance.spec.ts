import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callTrpc,
  createTopic,
  inviteMember,
  joinFromInvitation,
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
// Kafka's defaults (max.compaction.lag.ms never, segment.ms 7 d): cannot promise a 30-day purge.
const SLOW_TOPIC = "legacy-profiles";
const SUBJECT = "subject-42";
// Values the compliance role must never be shown, on any of its pages.
const VALUES = [
  "Ada Lovelace, 12 Analytical Street",
  "Ada Lovelace, moved to Difference Road",
  "kept-value-7",
  "Slow Subject, 1 Old Lane",
];
// The subject of the request that stays open: it has a value in the slow topic, which no pass
// removes soon, so its purge cannot be proven (a key never written would be purged at once).
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

describe("compliance pages", () => {
  let browser: Browser;
  let officer: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    const owner = await newConsolePage(browser);
    const ownerAccount = newAccount("Data Owner");
    await signUp(owner, ownerAccount);
    await createTopic(owner, { name: SLOW_TOPIC, partitions: 1, cleanupPolicy: "compact" });
    await owner.goto(`/topics/${SLOW_TOPIC}`);
    await owner.getByRole("heading", { name: SLOW_TOPIC, level: 1 }).waitFor();
    await produce(owner, { key: SLOW_SUBJECT, value: VALUES[3], offset: 0 });
    await createTopic(owner, { name: TOPIC, partitions: 1, cleanupPolicy: "compact" });
    await owner.getByRole("table", { name: "Topics" }).getByRole("link", { name: TOPIC }).click();
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

    const officerAccount = newAccount("Compliance Officer");
    const link = await inviteMember(owner, officerAccount.email, "compliance");
    officer = await newConsolePage(browser);
    await joinFromInvitation(officer, link, officerAccount, ownerAccount.name);
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
    // max.compaction.lag.ms=2 s meets a 30-day deadline on its own; Kafka's defaults do not, and
    // the page names the config change that fixes it.
    expect(await row.textContent()).toContain("Meets the deadline");
    const slow = await preflight.getByRole("row", { name: new RegExp(`^${SLOW_TOPIC} `) }).textContent();
    expect(slow).toContain("Cannot meet the deadline");
    expect(slow).toMatch(/max\.compaction\.lag\.ms=\d+/);
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
    // Kafka's defaults: the guard forces this pass only near half the 30-day window, so it stays open.
    await officer.getByTestId("request-status").filter({ hasText: "Tombstoned" }).waitFor();
    const later = new Date(Date.now() + 45 * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, "0");
    const local = `${later.getFullYear()}-${pad(later.getMonth() + 1)}-${pad(later.getDate())}T${pad(later.getHours())}:${pad(later.getMinutes())}`;
    const extend = officer.getByRole("form", { name: "Extend the deadline" });
    await extend.getByLabel("New deadline").fill(local);
    await extend.getByLabel("Reason for the extension").fill("Complex request: backups to search too");
    await extend.getByRole("button", { name: "Extend deadline" }).click();
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
  });

  it("exports the request's evidence as CSV", async () => {
    await openRequest(officer, SUBJECT);
    const download = officer.waitForEvent("download");
    await officer.getByRole("button", { name: "Export evidence (CSV)" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
  });
});
