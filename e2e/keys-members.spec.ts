import { SCOPES } from "@lastword/api/access-rules";
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { waitForNotice } from "./console-notices";
import {
  addMember,
  inviteMember,
  newAccount,
  saveScreenshot,
  saveScreenshotsAtWidths,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { openForm } from "./page-parts";

// The API keys and members pages: every scope the API defines is offered, reads ticked and writes
// opt-in, nothing above the creator's role; keys show their last use; members change role, leave,
// and pending invitations are revoked, one per address.

const scopeBox = (page: Page, scope: string) =>
  page
    .getByRole("form", { name: "Create an API key" })
    .getByRole("checkbox", { name: new RegExp(`${scope.replace(/[.:]/g, "\\$&")}( |$)`) });

async function createKey(page: Page, name: string, tick: readonly string[] = []): Promise<string> {
  await page.goto("/api-keys");
  const form = page.getByRole("form", { name: "Create an API key" });
  await form.getByLabel("Key name").fill(name);
  for (const scope of tick) await scopeBox(page, scope).check();
  await form.getByRole("button", { name: "Create key" }).click();
  const secret = page.getByLabel("New API key secret");
  await waitOrExplain(page, secret, `key-${name}`);
  return secret.inputValue();
}

// A key row's cells after its name (the row header): key, scopes, rules, created by, created, last used.
const LAST_USED_CELL = 5;

function keyRow(page: Page, name: string) {
  return page.getByRole("table", { name: "API keys" }).getByRole("row", { name: new RegExp(name) });
}

/** The sentence a field is described by when it refuses (its aria-describedby error), or null. */
function fieldError(field: Locator): Promise<string | null> {
  return field.evaluate((el) => {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ");
    const error = ids.find((id) => id.endsWith("-error"));
    return error ? (document.getElementById(error)?.textContent ?? null) : null;
  });
}

/** Whether the browser's constraint validation is off for the form (no tooltip can show). */
const validatesItself = (form: Locator) => form.evaluate((el) => (el as HTMLFormElement).noValidate);

async function rest(path: string, apiKey: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${inject("baseUrl")}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  });
}

describe("API keys", () => {
  const OWNER = "Key Keeper";
  const ui = useConsolePage({ account: OWNER });

  it("offers every scope the API defines, reads ticked and writes opt-in; the new key reads only and shows its last use", async () => {
    const { page } = ui;
    await page.goto("/api-keys");
    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Key name").waitFor();
    expect(await form.getByRole("checkbox").count()).toBe(SCOPES.length);
    for (const scope of SCOPES) {
      const box = scopeBox(page, scope);
      expect(await box.isChecked(), scope).toBe(
        scope.endsWith(":read") && !/^(keys|members|erasure|schemas)/.test(scope),
      );
      // The owner holds every scope, so every box can be ticked.
      expect(await box.isDisabled(), scope).toBe(false);
    }
    const overflow = await saveScreenshotsAtWidths(page, "api-keys-scopes");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });

    const secret = await createKey(page, "dashboard reader");
    const row = keyRow(page, "dashboard reader");
    await row.waitFor();
    expect(await row.getByRole("listitem").allTextContents()).toEqual([
      "topics:read",
      "records:read",
      "groups:read",
    ]);
    expect(await row.getByRole("cell").nth(LAST_USED_CELL).textContent()).toBe("Never");

    expect((await rest("/topics", secret)).status).toBe(200);
    const refused = await rest("/topics", secret, {
      method: "POST",
      body: JSON.stringify({ name: "from-a-reader", partitions: 1 }),
    });
    expect(refused.status).toBe(403);
    await page.reload();
    await keyRow(page, "dashboard reader").waitFor();
    // Last used: the use just made, to the minute.
    const lastUsed = keyRow(page, "dashboard reader").getByRole("cell").nth(LAST_USED_CELL);
    await expect.poll(() => lastUsed.textContent(), { timeout: 15_000 }).toMatch(/\d{4}, \d{1,2}:\d{2}/);
    await saveScreenshot(page, "api-keys-last-used");
  });

  it("limits a key to topics by a prefix rule in the form, edits its rules, and lists who made each key", async () => {
    const { page } = ui;
    await page.goto("/api-keys");
    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Key name").fill("orders reader");
    await form.getByRole("button", { name: "Add a rule" }).click();
    await form.getByLabel("Rule 1: name or prefix*").fill("orders.*");
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByLabel("New API key secret").inputValue();
    const row = keyRow(page, "orders reader");
    await row.waitFor();
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("read topic orders.*");
    expect(await row.getByRole("cell").nth(3).textContent()).toMatch(/@.* \(owner\)$/);
    // The rule holds on the API: a topic outside the prefix is refused, naming the rule's reach.
    const refused = await rest("/topics/billing", secret);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toContain("topic rules do not allow");

    const edit = page.getByRole("form", { name: "Limit a key to topics and groups" });
    const keySelect = edit.getByLabel("Key", { exact: true });
    const option = await keySelect.locator("option", { hasText: "orders reader" }).getAttribute("value");
    await keySelect.selectOption(option!);
    await edit.getByLabel("Rule 1: name or prefix*").fill("billing");
    await edit.getByLabel("Rule 1: allows").selectOption("write");
    await edit.getByRole("button", { name: "Save rules" }).click();
    await edit.getByRole("status").waitFor();
    await expect
      .poll(() => keyRow(page, "orders reader").getByRole("cell").nth(2).textContent(), { timeout: 10_000 })
      .toBe("write topic billing");
    await saveScreenshot(page, "api-keys-rules");
  });

  it("refuses a key without a name or scopes in the form's own words, not the browser's tooltip", async () => {
    const { page } = ui;
    const { form, field: name } = await openForm(page, "/api-keys", "Create an API key", "Key name");
    expect(await validatesItself(form)).toBe(true);
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("apiKeys.create")) sent.push(request.url());
    });
    await form.getByRole("button", { name: "Create key" }).click();
    // The browser would have stopped the submit at the empty required field; ours names it and focuses it.
    await expect
      .poll(() => fieldError(name))
      .toBe("Name the key, for example after the program that uses it.");
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true);

    await name.fill("no scopes");
    for (const scope of ["topics:read", "records:read", "groups:read"]) await scopeBox(page, scope).uncheck();
    await form.getByRole("button", { name: "Create key" }).click();
    await form.getByText("Tick at least one scope: a key without scopes can do nothing.").waitFor();
    expect(await fieldError(name)).toBeNull();
    await saveScreenshot(page, "api-keys-refused");
    expect(sent).toEqual([]);
    expect(await keyRow(page, "no scopes").count()).toBe(0);
  });

  it("a developer is offered no scope above their role, and the API refuses one sent anyway", async () => {
    const page = await addMember(ui.page, ui.browser, newAccount("Key Developer"), "developer", OWNER);
    await page.goto("/api-keys");
    await scopeBox(page, "records:write").waitFor();
    for (const scope of ["members:write", "members:read", "erasure:read", "erasure:write", "admin"]) {
      expect(await scopeBox(page, scope).isDisabled(), scope).toBe(scope !== "members:read");
    }
    expect(await scopeBox(page, "records:write").isDisabled()).toBe(false);
    await createKey(page, "ingest job", ["records:write"]);
    // The secret shows before the list refetches: wait for the row, as the owner's test does.
    await keyRow(page, "ingest job").waitFor();
    expect(await keyRow(page, "ingest job").getByRole("listitem").allTextContents()).toEqual([
      "topics:read",
      "records:read",
      "records:write",
      "groups:read",
    ]);
    await saveScreenshot(page, "api-keys-developer");

    // The grant rule holds behind the form: the same session asking for admin gets the API's refusal.
    const escalate = await page.evaluate(async () => {
      const res = await fetch("/api/v1/api-keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "sneaky", scopes: ["admin"] }),
      });
      return { status: res.status, body: (await res.json()) as { detail?: string } };
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.detail).toContain("admin");
    await page.reload();
    await keyRow(page, "ingest job").waitFor();
    expect(await keyRow(page, "sneaky").count()).toBe(0);
  });
});

describe("members", () => {
  const LEAD = "Team Lead";
  const ui = useConsolePage({ account: LEAD });

  it("changes a member's role, removes them, refuses a second invitation to one address and revokes a pending one", async () => {
    const { page } = ui;
    const colleague = newAccount("Casey Colleague");
    await addMember(page, ui.browser, colleague, "developer", LEAD);

    await page.goto("/members");
    const role = page.getByLabel(`Role of ${colleague.name}`);
    await waitOrExplain(page, role, "members-role-select");
    expect(await role.inputValue()).toBe("developer");
    const changed = page.waitForResponse((response) => response.url().includes("members.changeRole"));
    await role.selectOption("viewer");
    expect((await changed).status()).toBe(200);
    await page.reload();
    await expect
      .poll(() => page.getByLabel(`Role of ${colleague.name}`).inputValue(), { timeout: 15_000 })
      .toBe("viewer");

    const pendingEmail = "pending.person@example.com";
    await inviteMember(page, pendingEmail, "viewer");
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill(pendingEmail);
    await form.getByLabel("Role").selectOption("admin");
    await form.getByRole("button", { name: "Send invitation" }).click();
    await waitForNotice(form, "alert", `${pendingEmail} already has a pending invitation`);
    const invitations = page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem");
    expect(await invitations.filter({ hasText: pendingEmail }).count()).toBe(1);
    expect(await invitations.filter({ hasText: pendingEmail }).textContent()).toContain("viewer");
    await saveScreenshot(page, "members-duplicate-invitation");

    await page.getByRole("button", { name: `Revoke the invitation for ${pendingEmail}` }).click();
    await page.getByRole("button", { name: `Confirm revoking the invitation for ${pendingEmail}` }).click();
    await page.getByRole("status").filter({ hasText: "No invitations are waiting" }).waitFor();

    await page.getByRole("button", { name: `Remove ${colleague.name}` }).click();
    await page.getByRole("button", { name: `Confirm removing ${colleague.name}` }).click();
    await page
      .getByRole("table", { name: "Members" })
      .getByRole("rowheader", { name: colleague.name })
      .waitFor({
        state: "detached",
      });
    expect(
      await page.getByRole("table", { name: "Members" }).getByRole("rowheader").allTextContents(),
    ).toEqual([LEAD]);
    const overflow = await saveScreenshotsAtWidths(page, "members");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("refuses an empty or malformed address in the form's own words, not the browser's tooltip", async () => {
    const { page } = ui;
    const { form, field: email } = await openForm(page, "/members", "Invite a member", "Email");
    expect(await validatesItself(form)).toBe(true);
    // The field still says what it wants to assistive tech and the keyboard.
    expect(await email.getAttribute("type")).toBe("email");
    expect(await email.getAttribute("required")).not.toBeNull();
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("members.invite")) sent.push(request.url());
    });
    await form.getByRole("button", { name: "Send invitation" }).click();
    await expect.poll(() => fieldError(email)).toBe("Enter the email address of the person to invite.");
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    await email.fill("casey@");
    await email.press("Enter");
    await expect.poll(() => fieldError(email)).toBe("Enter an email address such as name@example.com.");
    await saveScreenshot(page, "members-invite-refused");
    expect(sent).toEqual([]);

    await email.fill("casey.second@example.com");
    await form.getByRole("button", { name: "Send invitation" }).click();
    await waitForNotice(form, "status", "Invited casey.second@example.com as developer");
    expect(await fieldError(email)).toBeNull();
    expect(sent).toHaveLength(1);
  });
});
