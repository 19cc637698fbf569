import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import {
  callTrpc,
  compactedTopic,
  deletePolicyTopic,
  saveScreenshot,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { produce, setConfig } from "./topic-actions";

const tag = randomBytes(3).toString("hex");
const STATE = `profiles-${tag}`;
const EVENTS = `clicks-${tag}`;

describe("topics list", () => {
  const ui = useConsolePage({
    account: "List Tester",
    topics: [compactedTopic(STATE), deletePolicyTopic(EVENTS, 2)],
  });

  it("shows per topic its policy, partitions, size, live vs dirty bytes, dirty ratio, last clean and warnings", async () => {
    await ui.page.goto(`/topics/${STATE}`);
    await ui.page.getByRole("heading", { name: STATE, level: 1 }).waitFor();
    for (let offset = 0; offset < 4; offset++) {
      await produce(ui.page, { key: `user-${offset % 2}`, value: `{"v":${offset}}`, offset });
    }
    await ui.page.goto(`/topics/${EVENTS}`);
    await ui.page.getByRole("heading", { name: EVENTS, level: 1 }).waitFor();
    await setConfig(ui.page, "retention.bytes", "1000");

    await ui.page.goto("/topics");
    const table = ui.page.getByRole("table", { name: "Topics" });
    await table.waitFor();
    expect(await table.getByRole("columnheader").allTextContents()).toEqual([
      "Name",
      "Policy",
      "Partitions",
      "Size",
      "Live / dirty",
      "Dirty ratio",
      "Last clean",
      "Warnings",
    ]);
    const stateRow = table.getByRole("row", { name: new RegExp(`^${STATE} `) });
    // Sizes come from the worker's next report (every scheduler tick); the list refreshes itself.
    // A report from before the records were produced says "0 B live": wait for one that has them,
    // or the size sort below compares two empty topics.
    await waitOrExplain(
      ui.page,
      stateRow.getByText(/^[1-9][\d.]* \w*B live · \d+(\.\d)? \w*B dirty$/),
      "topic-list-usage",
    );
    const cells = await stateRow.getByRole("cell").allTextContents();
    expect(cells[0]).toBe("compact");
    expect(cells[1]).toBe("1");
    expect(cells[2]).toMatch(/^[1-9]\d* B$/);
    expect(cells[4]).toMatch(/\d+%$/);
    expect(cells[5]).toBe("Never");
    // Kafka's compaction defaults do not hold an erasure back (the worker rewrites the key at
    // once): no deadline warning on a topic that meets it.
    expect(cells[6]).toBe("None");
    expect(await stateRow.getByRole("meter", { name: `${STATE} dirty ratio` }).count()).toBe(1);

    const eventsRow = table.getByRole("row", { name: new RegExp(`^${EVENTS} `) });
    const warning = eventsRow.getByText("1 warning", { exact: true });
    await warning.waitFor();
    expect(await eventsRow.textContent()).toContain("retention.bytes applies per partition");
    expect(await eventsRow.getByRole("cell").nth(1).textContent()).toBe("2");
    await saveScreenshot(ui.page, "topics-list");
  });

  it("searches by name and sorts by size, dirtiness and partitions", async () => {
    const table = ui.page.getByRole("table", { name: "Topics" });
    const names = () => table.getByRole("rowheader").allTextContents();
    const sort = ui.page.getByLabel("Sort by");
    await sort.selectOption("partitions");
    await expect.poll(names, { timeout: 10_000 }).toEqual([EVENTS, STATE]);
    await sort.selectOption("size");
    await expect.poll(names, { timeout: 10_000 }).toEqual([STATE, EVENTS]);
    // Nothing has rolled, so neither topic has a dirty byte yet: the name breaks the tie (and
    // undoes the size order above, so the poll sees this sort applied).
    await sort.selectOption("dirty");
    await expect.poll(names, { timeout: 10_000 }).toEqual([EVENTS, STATE]);

    await ui.page.getByLabel("Search topics").fill("CLICKS");
    await expect.poll(names, { timeout: 10_000 }).toEqual([EVENTS]);
    await ui.page.getByLabel("Search topics").fill("nothing-like-this");
    await waitForNotice(ui.page, "status", "No topic name contains “nothing-like-this”.");
  });

  it("keeps showing a topic when a background refresh fails, and says so until one succeeds", async () => {
    await ui.page.goto(`/topics/${STATE}`);
    const heading = ui.page.getByRole("heading", { name: STATE, level: 1 });
    await heading.waitFor();
    const topicRefresh = /\/api\/trpc\/[^?]*topics\.get/;
    await ui.page.route(topicRefresh, (route) => route.abort("connectionrefused"));
    const notice = ui.page.getByRole("alert").filter({ hasText: "We could not refresh this page" });
    // The page refreshes every 5 s and retries once before it reports a failure.
    await waitOrExplain(ui.page, notice, "topic-refresh-failed");
    expect(await heading.isVisible()).toBe(true);
    expect(await ui.page.getByRole("table", { name: "Partitions" }).count()).toBe(1);
    await ui.page.unroute(topicRefresh);
    await notice.waitFor({ state: "detached", timeout: 30_000 });
    expect(await heading.isVisible()).toBe(true);
  });
});

describe("topics list warnings against the compliance page", () => {
  const SLOW = `slow-${tag}`;
  const READY = `ready-${tag}`;
  const ui = useConsolePage({ account: "Verdict Checker", topics: [compactedTopic(SLOW)] });

  /** Per topic, what the list's Warnings column says. */
  async function listed(): Promise<Record<string, string>> {
    await ui.page.goto("/topics");
    const table = ui.page.getByRole("table", { name: "Topics" });
    const row = (name: string) => table.getByRole("row", { name: new RegExp(`^${name} `) });
    await row(READY).waitFor();
    // The last cell: before a worker reports, the usage columns are one cell.
    const warnings = async (name: string) =>
      (await row(name).getByRole("cell").allTextContents()).at(-1) ?? "";
    return { [SLOW]: await warnings(SLOW), [READY]: await warnings(READY) };
  }

  /** Per topic, the compliance page's deadline verdict. */
  async function verdicts(): Promise<Record<string, string>> {
    await ui.page.goto("/compliance");
    const preflight = ui.page.getByRole("table", { name: "Topic deadline preflight" });
    const verdict = async (name: string) => {
      const row = preflight.getByRole("row", { name: new RegExp(`^${name} `) });
      await row.waitFor();
      return (await row.getByRole("cell").allTextContents())[2] ?? "";
    };
    return { [SLOW]: await verdict(SLOW), [READY]: await verdict(READY) };
  }

  it("warns on the topics the compliance page says cannot meet the deadline, and only on those", async () => {
    // A min.compaction.lag.ms of 40 days holds an erased key's old values past a 30-day deadline.
    await ui.page.goto(`/topics/${SLOW}`);
    await ui.page.getByRole("heading", { name: SLOW, level: 1 }).waitFor();
    await setConfig(ui.page, "min.compaction.lag.ms", String(40 * 86_400_000));
    expect(
      await callTrpc(ui.page, "topics.create", { name: READY, partitions: 1, preset: "gdpr-table" }),
    ).toBe(200);
    expect(await verdicts()).toEqual({ [SLOW]: "Cannot meet the deadline", [READY]: "Meets the deadline" });
    const before = await listed();
    expect(before[READY]).toBe("None");
    expect(before[SLOW]).toContain("1 warning");
    expect(before[SLOW]).toContain("Cannot meet the 30-day erasure deadline");
    await saveScreenshot(ui.page, "topics-list-deadline-warning");

    // The topic page shows the same set.
    await ui.page.goto(`/topics/${SLOW}`);
    const warnings = ui.page.getByRole("region", { name: "1 warning" });
    await waitOrExplain(ui.page, warnings, "topic-page-deadline-warning");
    expect(
      await warnings.locator("li").evaluateAll((items) => items.map((li) => li.getAttribute("data-code"))),
    ).toEqual(["ERASURE_DEADLINE_MISSED"]);

    // The fix the compliance page suggests clears the warning in both places.
    await setConfig(ui.page, "min.compaction.lag.ms", String(86_400_000));
    expect(await verdicts()).toEqual({ [SLOW]: "Meets the deadline", [READY]: "Meets the deadline" });
    expect(await listed()).toEqual({ [SLOW]: "None", [READY]: "None" });
  });
});
