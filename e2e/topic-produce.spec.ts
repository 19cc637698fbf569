import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import { saveScreenshotsAtWidths, useTopicPage, waitOrExplain } from "./console-session";
import { showTab } from "./topic-actions";

const TOPIC = "profiles";

interface ReadRecord {
  offset: number;
  timestamp: number;
  key: { type: string; data: unknown } | null;
  value: { type: string; data: unknown } | null;
  headers: { key: string; value: { type: string; data: unknown } | null }[];
}

/** Partition 0's records as the REST API returns them, with the browser's session. */
function readRecords(page: Page, query = "offset=0"): Promise<ReadRecord[]> {
  return page.evaluate(
    async ({ topic, query }) => {
      const res = await fetch(`/api/v1/topics/${topic}/partitions/0/records?${query}`);
      return ((await res.json()) as { records: ReadRecord[] }).records;
    },
    { topic: TOPIC, query },
  );
}

describe("produce form: encodings, headers, a timestamp, several records", () => {
  const ui = useTopicPage("Produce Tester", TOPIC);
  // The tests fill one form on one page in turn, each after the records the ones before wrote.
  let form: Locator;

  beforeAll(async () => {
    await showTab(ui.page, "Messages");
    form = ui.page.getByRole("form", { name: "Produce a record" });
  });

  it("sends a JSON key, headers and an explicit timestamp", async () => {
    await form.getByLabel("Key", { exact: true }).fill('{"id":7}');
    await form.getByLabel("Key format").selectOption("json");
    await form.getByLabel("Value", { exact: true }).fill("first");
    await form.getByLabel("Headers").fill("source: console\ntrace: 42");
    await form.getByLabel("Timestamp (local)").fill("2026-03-04T05:06:07.008");
    await form.getByRole("button", { name: "Produce" }).click();
    await waitOrExplain(
      ui.page,
      form.getByRole("status").filter({ hasText: "Record written to partition 0 at offset 0." }),
      "produce-json-key",
    );
    const expectedTimestamp = await ui.page.evaluate(() => new Date("2026-03-04T05:06:07.008").getTime());
    const [record] = await readRecords(ui.page, "offset=0&limit=1&keyFormat=json");
    expect(record?.timestamp).toBe(expectedTimestamp);
    expect(record?.headers.map((h) => [h.key, h.value?.data])).toEqual([
      ["source", "console"],
      ["trace", "42"],
    ]);
    expect(record?.key).toEqual({ type: "json", data: { id: 7 } });
  });

  it("sends one record per line and says where they went", async () => {
    await form.getByLabel("Key format").selectOption("string");
    await form.getByLabel("Key", { exact: true }).fill("user-1");
    await form.getByLabel("Headers").fill("");
    await form.getByLabel("Timestamp (local)").fill("");
    await form.getByLabel("Records").selectOption("lines");
    await form.getByLabel("Value format").selectOption("json");
    await form.getByLabel("Value", { exact: true }).fill('{"v":1}\n{"v":2}\n\n{"v":3}');
    await form.getByRole("button", { name: "Produce" }).click();
    await waitForNotice(form, "status", "3 records written to partition 0 at offsets 1–3.");
    const values = (await readRecords(ui.page, "offset=1&valueFormat=json")).map((r) => r.value?.data);
    expect(values).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-produce-lines");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("names the wrong line, and clears the last success line when it refuses", async () => {
    const success = form.getByRole("status").filter({ hasText: "written" });
    expect(await success.count()).toBe(1);
    await form.getByLabel("Value", { exact: true }).fill('{"v":4}\n{oops');
    await form.getByRole("button", { name: "Produce" }).click();
    await form.getByText(/^Line 2 is not valid JSON/).waitFor();
    expect(await form.getByLabel("Value", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await success.waitFor({ state: "detached" });
  });

  it("says a keyless record on a compacted topic has no key, in the form's words", async () => {
    await form.getByLabel("Records").selectOption("one");
    await form.getByLabel("Value format").selectOption("string");
    await form.getByLabel("Value", { exact: true }).fill("orphan");
    await form.getByLabel("Key", { exact: true }).fill("");
    await form.getByRole("button", { name: "Produce" }).click();
    const alert = form.getByRole("alert");
    await alert.filter({ hasText: "This record has no key, and this topic is compacted" }).waitFor();
    expect(await alert.textContent()).not.toContain("Record 0");
    const overflow = await saveScreenshotsAtWidths(ui.page, "topic-produce-no-key");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("sends a base64 key as its bytes", async () => {
    await form.getByLabel("Key format").selectOption("base64");
    // "user-2" in base64.
    await form.getByLabel("Key", { exact: true }).fill("dXNlci0y");
    await form.getByLabel("Value", { exact: true }).fill("from bytes");
    await form.getByRole("button", { name: "Produce" }).click();
    await waitForNotice(form, "status", "Record written to partition 0 at offset 4.");
    const [asBytes] = await readRecords(ui.page, "offset=4&limit=1&keyFormat=base64");
    expect(asBytes?.key).toEqual({ type: "base64", data: "dXNlci0y" });
    const [asText] = await readRecords(ui.page, "offset=4&limit=1&keyFormat=string");
    expect(asText?.key).toEqual({ type: "string", data: "user-2" });
  });

  it("sends a JSON array of several records, each with its own key and headers", async () => {
    await form.getByLabel("Key format").selectOption("string");
    await form.getByLabel("Key", { exact: true }).fill("user-5");
    await form.getByLabel("Headers").fill("batch: 1");
    await form.getByLabel("Records").selectOption("json-array");
    const value = form.getByLabel("Value", { exact: true });
    expect(await value.getAttribute("aria-describedby")).toBeTruthy();
    const hint = await value.evaluate(
      (el) => document.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent,
    );
    expect(hint).toContain('"value": null is a tombstone');
    await value.fill(
      JSON.stringify([
        { key: "user-3", value: { plan: "pro" }, headers: { source: "import" } },
        { key: "user-4", value: { plan: "free" } },
        { value: null },
      ]),
    );
    await form.getByRole("button", { name: "Produce" }).click();
    await waitForNotice(form, "status", "3 records written to partition 0 at offsets 5–7.");
    const records = await readRecords(ui.page, "offset=5&limit=3&keyFormat=string&valueFormat=json");
    expect(
      records.map((r) => [
        r.key?.data,
        r.value?.data ?? null,
        r.headers.map((h) => `${h.key}=${h.value?.data}`),
      ]),
    ).toEqual([
      ["user-3", { plan: "pro" }, ["batch=1", "source=import"]],
      ["user-4", { plan: "free" }, ["batch=1"]],
      // No key of its own: the form's; a null value: a tombstone.
      ["user-5", null, ["batch=1"]],
    ]);
    expect(records[2]?.value).toBeNull();

    // Elements that are not all records are values sharing the form's key.
    await value.fill('[{"plan": "team"}, 3]');
    await form.getByRole("button", { name: "Produce" }).click();
    await waitForNotice(form, "status", "2 records written to partition 0 at offsets 8–9.");
    const values = await readRecords(ui.page, "offset=8&limit=2&keyFormat=string&valueFormat=json");
    expect(values.map((r) => [r.key?.data, r.value?.data])).toEqual([
      ["user-5", { plan: "team" }],
      ["user-5", 3],
    ]);
    await saveScreenshotsAtWidths(ui.page, "topic-produce-json-array");
  });
});
