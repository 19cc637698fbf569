import { stat } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTopic,
  launchChromium,
  newAccount,
  newConsolePage,
  saveScreenshot,
  signUp,
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

    const screenshot = await saveScreenshot(page, "console-topics");
    expect((await stat(screenshot)).size).toBeGreaterThan(0);
  });

  it("sends a signed-out visitor to sign in", async () => {
    const page = await newConsolePage(browser);
    await page.goto("/topics");
    await page.waitForURL("**/sign-in");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });
});
