import { stat } from "node:fs/promises";
import { createPrisma } from "@lastword/db";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createTopic,
  formAlert,
  launchChromium,
  newAccount,
  newConsolePage,
  saveScreenshot,
  signUp,
  submitAuthForm,
  waitOrExplain,
} from "./console-session";

/** Opens the header's organization popover from the keyboard. */
async function openOrganizationMenu(page: Page): Promise<void> {
  const trigger = page.locator("header").getByRole("button", { name: /^Organization:/ });
  if ((await trigger.getAttribute("aria-expanded")) === "true") return;
  await trigger.focus();
  await page.keyboard.press("Enter");
  await page.getByRole("form", { name: "Create an organization" }).waitFor();
}

async function expectOrganization(page: Page, name: string): Promise<void> {
  const shown = page.getByTestId("organization-name").filter({ hasText: new RegExp(`^${name}$`) });
  await waitOrExplain(page, shown, `organization-${name.replaceAll(" ", "-")}`);
}

async function topicNames(page: Page): Promise<string[]> {
  await page.goto("/topics");
  const table = page.getByRole("table", { name: "Topics" });
  const empty = page.getByRole("status").filter({ hasText: "no topics yet" });
  await table.or(empty).waitFor();
  return (await table.count()) === 0 ? [] : table.getByRole("rowheader").allTextContents();
}

async function inviteMember(page: Page, email: string, role: string): Promise<string> {
  await page.goto("/members");
  // The list is fetched after hydration: once it shows, the form submits through React, not natively.
  await page.getByRole("table", { name: "Members" }).waitFor();
  const form = page.getByRole("form", { name: "Invite a member" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption(role);
  await form.getByRole("button", { name: "Send invitation" }).click();
  const link = page.getByRole("textbox", { name: `Invitation link for ${email}`, exact: true });
  await waitOrExplain(page, link, `invitation-link-${role}`);
  return link.inputValue();
}

describe("console walking skeleton", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("signs up into a new organization, creates a topic and sees it listed", async () => {
    const page = await newConsolePage(browser);
    const account = newAccount("Grace Hopper");
    await signUp(page, account);

    expect(await page.getByTestId("organization-name").textContent()).toContain("Grace Hopper");
    await page.getByRole("status").filter({ hasText: "no topics yet" }).waitFor();

    await createTopic(page, { name: "customer-profiles", partitions: 3, cleanupPolicy: "compact" });
    await page.goto("/topics");
    const row = page.getByRole("table", { name: "Topics" }).getByRole("row", { name: /customer-profiles/ });
    await row.waitFor();
    expect((await row.getByRole("cell").allInnerTexts()).slice(0, 2)).toEqual(["compact", "3"]);

    await createTopic(page, { name: "orders", partitions: 1, cleanupPolicy: "delete" });
    await page.goto("/topics");
    const table = page.getByRole("table", { name: "Topics" });
    await page.getByLabel("Sort by").selectOption("partitions");
    expect(await table.getByRole("rowheader").allTextContents()).toEqual(["customer-profiles", "orders"]);
    await page.getByLabel("Search topics").fill("ORD");
    await table.getByRole("rowheader", { name: "customer-profiles" }).waitFor({ state: "detached" });
    expect(await table.getByRole("rowheader").allTextContents()).toEqual(["orders"]);
    await page.getByLabel("Search topics").fill("");

    const screenshot = await saveScreenshot(page, "console-topics");
    expect((await stat(screenshot)).size).toBeGreaterThan(0);
  });

  it("checks a preset without creating it, then creates it", async () => {
    const page = await newConsolePage(browser);
    await signUp(page, newAccount("Preset Tester"));
    const form = page.getByRole("form", { name: "Create a topic" });
    await form.getByLabel("Topic name").fill("account-state");
    await form.getByLabel("Preset").selectOption("state-table");
    expect(await form.getByLabel("Cleanup policy").isDisabled()).toBe(true);

    await form.getByRole("button", { name: "Check without creating" }).click();
    const outcome = form.getByRole("status").filter({ hasText: "account-state is valid" });
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain("min.cleanable.dirty.ratio=0.1");
    await page.getByRole("status").filter({ hasText: "no topics yet" }).waitFor();

    await form.getByRole("button", { name: "Create topic" }).click();
    await page.getByRole("heading", { name: "account-state", level: 1 }).waitFor();
    await page.goto("/topics");
    const row = page.getByRole("table", { name: "Topics" }).getByRole("row", { name: /account-state/ });
    await row.waitFor();
    expect((await row.getByRole("cell").allTextContents()).slice(0, 2)).toEqual(["compact", "1"]);
  });

  it("signs out and back in", async () => {
    const page = await newConsolePage(browser);
    const account = newAccount("Returning User");
    await signUp(page, account);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    await page.getByLabel("Email", { exact: true }).fill(account.email);
    await page.getByLabel("Password", { exact: true }).fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await formAlert(page).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(account.password);
    await submitAuthForm(page, "Sign in");
    expect(await page.getByTestId("organization-name").textContent()).toContain("Returning User");
  });

  it("lists the owner on the members page and invites a developer", async () => {
    const page = await newConsolePage(browser);
    const account = newAccount("Team Owner");
    await signUp(page, account);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Members" }).click();
    const owner = page.getByRole("table", { name: "Members" }).getByRole("row", { name: /Team Owner/ });
    await owner.waitFor();
    expect(await owner.getByRole("cell").allTextContents()).toContain("owner");
    await page.getByRole("status").filter({ hasText: "No invitations are waiting" }).waitFor();

    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill("new.developer@example.com");
    await form.getByLabel("Role").selectOption("developer");
    await form.getByRole("button", { name: "Send invitation" }).click();
    const invitation = page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem");
    await invitation.filter({ hasText: "new.developer@example.com" }).waitFor();
    expect(await invitation.textContent()).toContain("developer");
    const link = await page
      .getByRole("textbox", { name: "Invitation link for new.developer@example.com", exact: true })
      .inputValue();
    // The link carries the invitation's secret token; the pending list does not show it.
    expect(link).toMatch(new RegExp(`^${inject("baseUrl")}/invitations/[\\w-]+\\?token=lwi_[\\w-]+$`));
    expect(await invitation.textContent()).not.toContain(new URL(link).searchParams.get("token"));
  });

  it("switches between organizations, and every page shows the active one's data only", async () => {
    const page = await newConsolePage(browser);
    const account = newAccount("Multi Org Owner");
    await signUp(page, account);
    await expectOrganization(page, "Multi Org Owner");
    await createTopic(page, { name: "first-only", partitions: 1, cleanupPolicy: "compact" });

    // A topic page names a resource of the old tenant: switching from it lands on the list.
    await page.goto("/topics/first-only");
    await page.getByRole("table", { name: "Partitions" }).waitFor();
    await openOrganizationMenu(page);
    expect(await page.getByText("You belong to this organization only.").isVisible()).toBe(true);
    await page.getByLabel("New organization name").fill("Second Org");
    await page.getByRole("button", { name: "Create organization" }).click();
    await expectOrganization(page, "Second Org");
    await page.waitForURL("**/topics");
    await page.getByRole("status").filter({ hasText: "no topics yet" }).waitFor();
    expect(await page.locator("header").getByText("owner", { exact: true }).isVisible()).toBe(true);

    await createTopic(page, { name: "second-only", partitions: 1, cleanupPolicy: "delete" });
    await page.goto("/api-keys");
    await page.getByRole("status").filter({ hasText: "no API keys yet" }).waitFor();
    const keyForm = page.getByRole("form", { name: "Create an API key" });
    await keyForm.getByLabel("Key name").fill("second-key");
    await keyForm.getByRole("button", { name: "Create key" }).click();
    await page
      .getByRole("table", { name: "API keys" })
      .getByRole("rowheader", { name: "second-key" })
      .waitFor();
    await page.goto("/members");
    await page.getByRole("table", { name: "Members" }).waitFor();
    await page
      .getByRole("form", { name: "Invite a member" })
      .getByLabel("Email")
      .fill("only.second@example.com");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page
      .getByRole("textbox", { name: "Invitation link for only.second@example.com", exact: true })
      .waitFor();

    await openOrganizationMenu(page);
    await saveScreenshot(page, "organization-switcher-menu");
    await page.getByRole("button", { name: "Switch to Multi Org Owner" }).click();
    await expectOrganization(page, "Multi Org Owner");
    expect(await topicNames(page)).toEqual(["first-only"]);
    await page.goto("/api-keys");
    await page.getByRole("status").filter({ hasText: "no API keys yet" }).waitFor();
    await page.goto("/members");
    await page.getByRole("status").filter({ hasText: "No invitations are waiting" }).waitFor();
    expect(
      await page.getByRole("table", { name: "Members" }).getByRole("rowheader").allTextContents(),
    ).toEqual(["Multi Org Owner"]);
    await saveScreenshot(page, "organization-switcher");

    // The choice is the session's: a reload, or a new tab, stays in the chosen organization.
    await openOrganizationMenu(page);
    await page.getByRole("button", { name: "Switch to Second Org" }).click();
    await expectOrganization(page, "Second Org");
    await page.reload();
    await expectOrganization(page, "Second Org");
    expect(await topicNames(page)).toEqual(["second-only"]);

    // Switching in another tab moves the session; this tab follows when it is looked at again,
    // rather than showing the other tenant's topics under this one's name.
    const otherTab = await page.context().newPage();
    await otherTab.goto("/topics");
    await openOrganizationMenu(otherTab);
    await otherTab.getByRole("button", { name: "Switch to Multi Org Owner" }).click();
    await expectOrganization(otherTab, "Multi Org Owner");
    await page.bringToFront();
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
    await expectOrganization(page, "Multi Org Owner");
    await page
      .getByRole("table", { name: "Topics" })
      .getByRole("rowheader", { name: "first-only" })
      .waitFor();
    expect(
      await page.getByRole("table", { name: "Topics" }).getByRole("rowheader").allTextContents(),
    ).toEqual(["first-only"]);
  });

  it("reaches the header from the keyboard and keeps a chosen theme across reloads", async () => {
    const page = await newConsolePage(browser);
    await signUp(page, newAccount("Night Owl"));
    const canvas = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await canvas();

    // Tab order: skip link, logo, organization menu, nav links, theme, sign out — no mouse needed.
    const reached: string[] = [];
    await page.locator("body").focus();
    for (let i = 0; i < 14 && !reached.includes("Theme"); i++) {
      await page.keyboard.press("Tab");
      reached.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          return (
            (el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null) ??
            el?.textContent ??
            ""
          );
        }),
      );
    }
    // The skip link comes first (it bypasses the header), then the header itself.
    expect(reached.slice(0, 4)).toEqual([
      "Skip to content",
      "Lastword",
      "Organization: Night Owl▾",
      "Overview",
    ]);
    expect(reached).toContain("Members");
    expect(reached.at(-1)).toBe("Theme");

    await page.getByLabel("Theme").selectOption("dark");
    expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
    const dark = await canvas();
    expect(dark).not.toBe(light);
    await page.reload();
    expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
    expect(await canvas()).toBe(dark);
    await page.getByRole("status").filter({ hasText: "no topics yet" }).waitFor();
    await saveScreenshot(page, "console-dark");

    // "System" follows prefers-color-scheme again.
    await page.getByLabel("Theme").selectOption("system");
    expect(await page.locator("html").getAttribute("data-theme")).toBeNull();
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await canvas()).toBe(dark);
    await page.emulateMedia({ colorScheme: "light" });
    expect(await canvas()).toBe(light);
  });

  it("accepts an invitation: sign up from the link, join with the invited role", async () => {
    const owner = await newConsolePage(browser);
    await signUp(owner, newAccount("Inviting Owner"));
    const invitee = newAccount("Invited Developer");
    const link = await inviteMember(owner, invitee.email, "developer");

    // The inviter opening the link is told it is someone else's.
    await owner.goto(link);
    await owner.getByRole("status").filter({ hasText: "so you cannot accept it" }).waitFor();

    const page = await newConsolePage(browser);
    await page.goto(link);
    await page.getByRole("heading", { name: "Join Inviting Owner" }).waitFor();
    expect(await page.getByRole("main").textContent()).toContain(
      `invited ${invitee.email} to join as developer`,
    );
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.waitForURL("**/sign-up?**");
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(invitee.email);
    await page.getByLabel("Name", { exact: true }).fill(invitee.name);
    await page.getByLabel("Password", { exact: true }).fill(invitee.password);
    await submitAuthForm(page, "Create account", "**/invitations/*");

    await page.getByRole("button", { name: "Accept and join Inviting Owner" }).click();
    await page.waitForURL("**/topics");
    await expectOrganization(page, "Inviting Owner");
    expect(await page.locator("header").getByText("developer", { exact: true }).isVisible()).toBe(true);
    // Their own organization (made at sign-up) stays theirs, one switch away.
    await openOrganizationMenu(page);
    await page.getByRole("button", { name: "Switch to Invited Developer" }).waitFor();
    await page.keyboard.press("Escape");

    // A developer reads the member list but is offered nothing that needs members:write.
    await page.goto("/members");
    await page.getByRole("status").filter({ hasText: "Owners and admins invite members" }).waitFor();
    const people = page.getByRole("table", { name: "Members" });
    await people.getByRole("rowheader", { name: "Invited Developer" }).waitFor();
    expect(await people.getByRole("rowheader").allTextContents()).toEqual([
      "Inviting Owner",
      "Invited Developer",
    ]);
    expect(await page.getByRole("combobox", { name: /^Role of / }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Invite a member" }).count()).toBe(0);

    await owner.goto("/members");
    const row = owner.getByRole("table", { name: "Members" }).getByRole("row", { name: /Invited Developer/ });
    await row.waitFor();
    expect(await row.getByLabel("Role of Invited Developer").inputValue()).toBe("developer");
    await owner.getByRole("status").filter({ hasText: "No invitations are waiting" }).waitFor();

    await page.goto(link);
    await page.getByRole("heading", { name: "Invitation already accepted" }).waitFor();
    await saveScreenshot(page, "invitation-accepted");
  });

  it("answers unknown and expired invitation links with a sentence", async () => {
    const page = await newConsolePage(browser);
    await page.goto("/invitations/no-such-invitation");
    await page.getByRole("heading", { name: "Invitation not found" }).waitFor();
    expect(await page.getByRole("status").textContent()).toContain("does not match any invitation");

    await signUp(page, newAccount("Expiring Owner"));
    const link = await inviteMember(page, "too.late@example.com", "viewer");
    const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
    try {
      const id = new URL(link).pathname.split("/").at(-1) ?? "";
      await prisma.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    } finally {
      await prisma.$disconnect();
    }
    await page.goto(link);
    await page.getByRole("heading", { name: "Invitation expired" }).waitFor();
    expect(await page.getByRole("status").textContent()).toMatch(
      /^This invitation to Expiring Owner expired on .+\. Ask an owner or admin of Expiring Owner to invite you again\.$/,
    );
  });

  it("sends a signed-out visitor to sign in", async () => {
    const page = await newConsolePage(browser);
    await page.goto("/topics");
    await page.waitForURL("**/sign-in");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });
});
