import { stat } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTopic,
  formAlert,
  launchChromium,
  newAccount,
  newConsolePage,
  saveScreenshot,
  signUp,
  submitAuthForm,
} from "./console-session";

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
    const row = page.getByRole("table", { name: "Topics" }).getByRole("row", { name: /customer-profiles/ });
    expect(await row.getByRole("cell").allInnerTexts()).toEqual(["compact", "3"]);

    await createTopic(page, { name: "orders", partitions: 1, cleanupPolicy: "delete" });
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
    const row = page.getByRole("table", { name: "Topics" }).getByRole("row", { name: /account-state/ });
    await row.waitFor();
    expect(await row.getByRole("cell").allTextContents()).toEqual(["compact", "1"]);
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
  });

  it("sends a signed-out visitor to sign in", async () => {
    const page = await newConsolePage(browser);
    await page.goto("/topics");
    await page.waitForURL("**/sign-in");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });
});
