import type { Locator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { showTab, uniqueTopicName } from "./topic-actions";

const TOPIC = uniqueTopicName("wizard");

describe("create-topic wizard", () => {
  const ui = useConsolePage({ account: "Wizard Tester" });
  let form: Locator;

  // One config's row: its input, unit select and messages.
  const config = (name: string) => form.locator(`[data-config="${name}"]`);
  const amount = (name: string) => form.getByLabel(name, { exact: true });
  const unit = (name: string) => form.getByLabel(`${name} unit`, { exact: true });
  const setDuration = async (name: string, value: string, unitName: string) => {
    await unit(name).selectOption(unitName);
    await amount(name).fill(value);
  };

  beforeAll(() => {
    form = ui.page.getByRole("form", { name: "Create a topic" });
  });

  it("fills a preset's values, takes edits in hours and MiB, and refuses bad values field by field", async () => {
    await form.getByLabel("Topic name").fill(TOPIC);
    await form.getByLabel("Partitions").fill("2");
    await form.getByLabel("Preset").selectOption("event-stream");
    expect(await form.getByLabel("Cleanup policy").inputValue()).toBe("delete");
    expect(await form.getByText("Keeps every record for 7 days, then deletes it.").count()).toBeGreaterThan(
      0,
    );

    // The section is a disclosure: opened from the keyboard.
    await form.locator("summary").focus();
    await ui.page.keyboard.press("Enter");
    await amount("retention.ms").waitFor();
    expect(await amount("retention.ms").inputValue()).toBe("7");
    expect(await unit("retention.ms").inputValue()).toBe("d");
    expect(await config("retention.ms").getByText("from preset").count()).toBe(1);
    expect(await config("segment.ms").getByText("from preset").count()).toBe(0);
    expect(await config("segment.ms").textContent()).toContain(
      "age of the first record after which the active segment is rolled. Default: 7 d.",
    );
    expect(await unit("segment.bytes").inputValue()).toBe("GiB");

    await setDuration("retention.ms", "-3", "h");
    await config("retention.ms").getByText('retention.ms must be -1 or ≥ 0, got "-10800000"').waitFor();
    expect(await amount("retention.ms").getAttribute("aria-invalid")).toBe("true");
    await amount("retention.ms").fill("2");
    await waitGone(config("retention.ms").getByText("must be -1 or ≥ 0"));
    expect(await config("retention.ms").getByText("edited").count()).toBe(1);
    expect(await config("retention.ms").textContent()).toContain("Preset: 7 d.");

    await unit("segment.bytes").selectOption("MiB");
    await amount("segment.bytes").fill("64");
    // retention.bytes starts at "no limit", its amount disabled until a unit is chosen.
    await unit("retention.bytes").selectOption("MiB");
    await amount("retention.bytes").fill("100");

    await setDuration("max.compaction.lag.ms", "1", "h");
    await setDuration("min.compaction.lag.ms", "2", "h");
    const crossed =
      "min.compaction.lag.ms (7200000) must not be greater than max.compaction.lag.ms (3600000)";
    await config("min.compaction.lag.ms").getByText(crossed).waitFor();
    await config("max.compaction.lag.ms").getByText(crossed).waitFor();
    // Nothing is sent while a field is wrong.
    await form.getByRole("button", { name: "Preview" }).click();
    await form.getByRole("alert").filter({ hasText: "2 fields need a change first" }).waitFor();
    await form.getByRole("button", { name: "Undo the change to min.compaction.lag.ms" }).click();
    await waitGone(form.getByText(crossed).first());
    await saveScreenshot(ui.page, "topic-create-wizard");
  });

  it("previews the resulting configs and warnings without creating the topic", async () => {
    await form.getByRole("button", { name: "Preview" }).click();
    const outcome = form.getByRole("status").filter({ hasText: `${TOPIC} is valid` });
    await waitOrExplain(ui.page, outcome, "topic-create-preview");
    const warnings = await outcome.getByRole("list", { name: "Warnings" }).textContent();
    expect(warnings).toContain("retention.ms (2 h) is below segment.ms (168 h)");
    expect(warnings).toContain(
      `retention.bytes applies per partition: this topic may keep up to ${2 * 100 * 1024 ** 2} bytes`,
    );
    const rows = outcome.getByRole("table", { name: "Resulting configs" });
    const cells = async (name: string) =>
      rows
        .getByRole("row", { name: new RegExp(`^${name.replaceAll(".", "\\.")} `) })
        .getByRole("cell")
        .allTextContents();
    expect(await cells("retention.ms")).toEqual(["2 h (7200000)", "set"]);
    expect(await cells("segment.bytes")).toEqual(["64.0 MiB (67108864)", "set"]);
    expect(await cells("cleanup.policy")).toEqual(["delete", "set"]);
    expect(await cells("max.compaction.lag.ms")).toEqual(["1 h (3600000)", "set"]);
    expect(await cells("min.compaction.lag.ms")).toEqual(["0 ms (0)", "default"]);
    expect(await cells("segment.ms")).toEqual(["7 d (604800000)", "default"]);
    await saveScreenshot(ui.page, "topic-create-preview");

    // A compacted preset adds the erasure deadline check of the resulting configs.
    await form.getByLabel("Preset").selectOption("gdpr-table");
    await form.getByRole("button", { name: "Preview" }).click();
    await outcome
      .getByText(/^Erasure deadline: an erased key's old values are purged and proven gone within/)
      .waitFor();
    await form.getByLabel("Preset").selectOption("event-stream");

    // Still nothing in the list.
    await ui.page.getByRole("status").filter({ hasText: "no topics yet" }).waitFor();
    expect(await ui.page.getByRole("table", { name: "Topics" }).count()).toBe(0);
  });

  it("creates the topic with those configs set, and puts the server's refusal next to the field", async () => {
    await form.getByRole("button", { name: "Create topic" }).click();
    // The new topic opens; the list has it, and the form starts over when we come back.
    await waitOrExplain(
      ui.page,
      ui.page.getByRole("heading", { name: TOPIC, level: 1 }),
      "topic-create-created",
    );
    expect(new URL(ui.page.url()).pathname).toBe(`/topics/${TOPIC}`);
    expect(await saveScreenshotsAtWidths(ui.page, "topic-create-opened")).toEqual({ 1440: 0, 390: 0 });
    await ui.page.goBack();
    const link = ui.page
      .getByRole("table", { name: "Topics" })
      .getByRole("link", { name: TOPIC, exact: true });
    await link.waitFor();
    expect(await form.getByLabel("Topic name").inputValue()).toBe("");
    expect(await form.getByLabel("Preset").inputValue()).toBe("custom");
    expect(await form.getByLabel("Partitions").inputValue()).toBe("1");

    // The same name again: the API's 409 problem, shown at the name.
    await form.getByLabel("Topic name").fill(TOPIC);
    await form.getByRole("button", { name: "Create topic" }).click();
    await form.getByText(`Topic "${TOPIC}" already exists.`).waitFor();
    expect(await form.getByLabel("Topic name").getAttribute("aria-invalid")).toBe("true");

    await link.click();
    await ui.page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await showTab(ui.page, "Configs");
    const table = ui.page.getByRole("table", { name: "Configs" });
    const row = (name: string) =>
      table.getByRole("row", { name: new RegExp(`^${name.replaceAll(".", "\\.")} `) });
    for (const [name, human] of [
      ["retention.ms", "2 h"],
      ["segment.bytes", "64.0 MiB"],
      ["retention.bytes", "100.0 MiB"],
      ["max.compaction.lag.ms", "1 h"],
    ] as const) {
      const cells = await row(name).getByRole("cell").allTextContents();
      expect(cells[0], name).toContain(human);
      expect(cells.at(-1), name).toBe("set");
    }
    expect((await row("segment.ms").getByRole("cell").allTextContents()).at(-1)).toBe("default");
    expect((await row("cleanup.policy").getByRole("cell").allTextContents())[0]).toBe("delete");
  });

  it("refuses a bad name and count in its own words, not the browser's validation tooltip", async () => {
    await ui.page.goto("/topics");
    await form.getByLabel("Topic name").fill("bad name!");
    await form.getByLabel("Partitions").fill("0");
    await form.getByRole("button", { name: "Create topic" }).click();
    // Had the browser validated, the submit would never run and these sentences never appear.
    await form.getByText("may contain only letters, digits, '.', '_' and '-'").waitFor();
    expect(await form.getByLabel("Topic name").getAttribute("aria-invalid")).toBe("true");
    expect(await form.getByLabel("Partitions").getAttribute("aria-invalid")).toBe("true");
    await saveScreenshotsAtWidths(ui.page, "topic-create-own-validation");
  });
});

async function waitGone(locator: Locator): Promise<void> {
  await locator.waitFor({ state: "detached" });
}
