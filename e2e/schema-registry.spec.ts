import { beforeAll, describe, expect, it } from "vitest";
import { waitForNotice } from "./console-notices";
import { saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { messageCells, messageRow, searchMessages } from "./message-browser-actions";
import { showTab } from "./topic-actions";

const TOPIC = "profiles";
const SUBJECT = `${TOPIC}-value`;
/** The subject's Avro record; each version below differs from it only in its fields. */
const profile = (fields: object[]) =>
  JSON.stringify({ type: "record", name: "Profile", namespace: "demo", fields });
const V1_FIELDS = [
  { name: "name", type: "string" },
  { name: "visits", type: "int" },
];
const V1 = profile(V1_FIELDS);
const V2 = profile([...V1_FIELDS, { name: "plan", type: "string", default: "free" }]);
const BREAKING = profile([{ name: "name", type: "long" }]);

describe("schemas in the console: register, produce with a schema, browse decoded, filter on a decoded field", () => {
  const ui = useConsolePage({
    account: "Schema Tester",
    topics: [{ name: TOPIC, partitions: 1, cleanupPolicy: "compact" }],
  });

  beforeAll(async () => {
    await ui.page.goto("/schemas");
    await ui.page.getByRole("heading", { name: "Schemas", level: 1 }).waitFor();
  });

  /** Fills the register form, checks, and (when it passes) registers. */
  async function register(schema: string) {
    const form = ui.page.getByRole("form", { name: "Register a schema" });
    await form.getByLabel("Subject", { exact: true }).fill(SUBJECT);
    await form.getByLabel("Schema", { exact: true }).fill(schema);
    await form.getByRole("button", { name: "Check compatibility" }).click();
    return form;
  }

  it("registers a schema after its check, refuses an incompatible version with the reason, and diffs versions", async () => {
    let form = await register(V1);
    await form.getByRole("status").filter({ hasText: "Compatible" }).waitFor();
    await form.getByRole("button", { name: "Register", exact: true }).click();
    await waitForNotice(form, "status", `Registered ${SUBJECT} version 1 (schema id 1).`);

    form = await register(BREAKING);
    await form.getByRole("alert").filter({ hasText: "Not BACKWARD compatible" }).waitFor();
    expect(await form.getByRole("button", { name: "Register", exact: true }).count()).toBe(0);

    form = await register(V2);
    await form.getByRole("status").filter({ hasText: "Compatible" }).waitFor();
    await form.getByRole("button", { name: "Register", exact: true }).click();
    await waitForNotice(form, "status", `Registered ${SUBJECT} version 2 (schema id 2).`);

    const subjects = ui.page.getByRole("table", { name: "Subjects" });
    await subjects.getByRole("row").filter({ hasText: "v2 · id 2" }).waitFor();
    const diff = ui.page.getByRole("table", { name: "Diff of v1 and v2" });
    await waitOrExplain(ui.page, diff, "schema-diff");
    expect(
      await diff.locator('tr[data-change="added"], tr[data-change="changed"]').allTextContents(),
    ).toEqual(expect.arrayContaining([expect.stringContaining('"plan"')]));
    const overflow = await saveScreenshotsAtWidths(ui.page, "schemas-page");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("produces with the schema from the topic's form, and the browser shows the record decoded with its schema", async () => {
    await ui.page.goto(`/topics/${TOPIC}`);
    await ui.page.getByRole("heading", { name: TOPIC, level: 1 }).waitFor();
    await ui.page.getByRole("link", { name: SUBJECT }).waitFor();
    await showTab(ui.page, "Messages");
    const form = ui.page.getByRole("form", { name: "Produce a record" });
    await form.getByLabel("Value schema").selectOption(SUBJECT);
    for (const [offset, key, value] of [
      [0, "ada", { name: "Ada", visits: 3, plan: "pro" }],
      [1, "bob", { name: "Bob", visits: 1, plan: "free" }],
    ] as const) {
      await form.getByLabel("Key", { exact: true }).fill(key);
      await form.getByLabel("Value", { exact: true }).fill(JSON.stringify(value));
      await form.getByRole("button", { name: "Produce" }).click();
      await form
        .getByRole("status")
        .filter({ hasText: `Record written to partition 0 at offset ${offset}.` })
        .waitFor();
    }
    // A value that does not fit the schema is refused with the library's reason, and nothing is sent.
    await form.getByLabel("Value", { exact: true }).fill('{"name":"Eve"}');
    await form.getByRole("button", { name: "Produce" }).click();
    await form.getByText("does not match the Avro schema").waitFor();

    await searchMessages(ui.page);
    const cells = await messageCells(ui.page, 0);
    expect(cells.join(" ")).toContain('{"name":"Ada","visits":3,"plan":"pro"}');
    expect(cells.join(" ")).toContain(`AVRO · ${SUBJECT} v2 · id 2`);
  });

  it("filters on a decoded field with a JSON path", async () => {
    const summary = await searchMessages(ui.page, {
      fill: { "JSON path": "$.plan", "JSON path equals": "free" },
    });
    expect(summary).toContain("1 shown");
    await messageRow(ui.page, 1).waitFor();
    expect((await messageCells(ui.page, 1)).join(" ")).toContain('"name":"Bob"');
    expect(await messageRow(ui.page, 0).count()).toBe(0);
  });
});
