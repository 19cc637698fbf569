import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import {
  inviteMember,
  newConsolePage,
  saveScreenshot,
  saveScreenshotsAtWidths,
  useConsolePage,
  waitOrExplain,
} from "./console-session";

const TOPIC = "screens";

/** Every console page, and what shows that its own content is on screen. */
const PAGES: { name: string; path: string; ready: (page: Page) => Locator }[] = [
  {
    name: "overview",
    path: "/overview",
    ready: (p) => p.getByRole("table", { name: "Usage against limits" }),
  },
  { name: "topics", path: "/topics", ready: (p) => p.getByRole("table", { name: "Topics" }) },
  { name: "topic", path: `/topics/${TOPIC}`, ready: (p) => p.getByRole("table", { name: "Partitions" }) },
  {
    name: "consumer-groups",
    path: "/consumer-groups",
    ready: (p) => p.getByRole("heading", { name: "Consumer groups", level: 1 }),
  },
  {
    name: "transactions",
    path: "/transactions",
    ready: (p) => p.getByRole("heading", { name: "Transactions", level: 1 }),
  },
  { name: "api-keys", path: "/api-keys", ready: (p) => p.getByRole("form", { name: "Create an API key" }) },
  {
    name: "compliance",
    path: "/compliance",
    ready: (p) => p.getByRole("heading", { name: "Compliance", level: 1 }),
  },
  { name: "members", path: "/members", ready: (p) => p.getByRole("table", { name: "Members" }) },
  {
    name: "api-reference",
    path: "/api-reference",
    ready: (p) => p.locator(".lastword-api-reference").getByText("Lastword API").first(),
  },
];

/** Each cell of a stacked row: its display and the column title drawn before it. */
function stackedCells(row: Locator) {
  return row.locator(":scope > td, :scope > th").evaluateAll((elements) =>
    elements.map((el) => ({
      display: getComputedStyle(el).display,
      label: getComputedStyle(el, "::before").content,
      width: el.getBoundingClientRect().width,
    })),
  );
}

const NAV_LABELS = [
  "Overview",
  "Topics",
  "Consumer groups",
  "Transactions",
  "Schemas",
  "API keys",
  "Compliance",
  "Members",
  "Settings",
  "API",
];

describe("the console on a laptop and a phone", () => {
  const ui = useConsolePage({
    account: "Screen Tester",
    topics: [{ name: TOPIC, partitions: 2, cleanupPolicy: "compact" }],
  });

  it("fits every page in 1440 and 390 px without sideways scrolling, saving a screenshot of each", async () => {
    for (const entry of PAGES) {
      await ui.page.goto(entry.path);
      await waitOrExplain(ui.page, entry.ready(ui.page), `screens-${entry.name}`);
      const overflow = await saveScreenshotsAtWidths(ui.page, `page-${entry.name}`);
      expect(overflow, entry.path).toEqual({ 1440: 0, 390: 0 });
    }
  });

  it("collapses the navigation into one menu at 390 px", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/topics");
    const nav = page.getByRole("navigation", { name: "Console" });
    const trigger = nav.getByRole("button", { name: /^Menu/ });
    await trigger.waitFor();
    expect(await nav.getByRole("link", { name: "Members" }).isVisible()).toBe(false);
    expect(await trigger.textContent()).toContain("Topics");

    await trigger.click();
    const menu = page.getByRole("menu");
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(NAV_LABELS);
    await saveScreenshot(page, "nav-menu-open-390");
    await menu.getByRole("menuitem", { name: "Members" }).click();
    await page.waitForURL("**/members");
    await page.getByRole("table", { name: "Members" }).waitFor();
    expect(await trigger.textContent()).toContain("Members");
    expect(await page.getByRole("menu").count()).toBe(0);

    // The keyboard opens it too, and Escape closes it back onto its button.
    await trigger.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menu").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("menu").waitFor({ state: "detached" });
    expect(await trigger.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.setViewportSize({ width: 1440, height: 900 });
    await nav.getByRole("link", { name: "Members" }).waitFor();
    expect(await trigger.isVisible()).toBe(false);
  });

  it("stacks table rows at 390 px, each cell under its column title", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/topics");
    const row = page.getByRole("table", { name: "Topics" }).locator("tbody tr").first();
    await row.waitFor();
    const cells = await stackedCells(row);
    const rowWidth = await row.evaluate((el) => el.getBoundingClientRect().width);
    expect(cells.map((cell) => cell.display)).toEqual(cells.map(() => "flex"));
    expect(cells.slice(0, 3).map((cell) => cell.label)).toEqual(['"Name"', '"Policy"', '"Partitions"']);
    // One cell a line: each spans the row.
    for (const cell of cells) expect(cell.width).toBeGreaterThan(rowWidth * 0.9);
    await saveScreenshot(page, "topics-stacked-390");

    await page.setViewportSize({ width: 1440, height: 900 });
    await expect
      .poll(() =>
        row
          .locator(":scope > th, :scope > td")
          .first()
          .evaluate((el) => getComputedStyle(el).display),
      )
      .toBe("table-cell");

    await page.setViewportSize({ width: 390, height: 844 });
    // The API keys and members tables stack the same way, each cell under its title (the actions
    // column has none: its buttons say what they do).
    await page.goto("/api-keys");
    const keyForm = page.getByRole("form", { name: "Create an API key" });
    await keyForm.getByLabel("Key name").fill("stacked");
    await keyForm.getByRole("button", { name: "Create key" }).click();
    const keyRow = page
      .getByRole("table", { name: "API keys" })
      .locator("tbody tr")
      // A stacked cell's title is generated content, part of the row's accessible name: match the text.
      .filter({ hasText: "stacked" });
    await keyRow.waitFor();
    const keyCells = await stackedCells(keyRow);
    expect(keyCells.map((cell) => cell.display)).toEqual(keyCells.map(() => "flex"));
    expect(keyCells.map((cell) => cell.label)).toEqual([
      '"Name"',
      '"Key"',
      '"Scopes"',
      '"Rules"',
      '"Created by"',
      '"Created"',
      '"Last used"',
      "none",
    ]);
    await saveScreenshot(page, "api-keys-stacked-390");
    await page.goto("/members");
    const memberRow = page.getByRole("table", { name: "Members" }).locator("tbody tr").first();
    await memberRow.waitFor();
    const memberCells = await stackedCells(memberRow);
    expect(memberCells.map((cell) => cell.label)).toEqual([
      '"Name"',
      '"Email"',
      '"Role"',
      '"Joined"',
      "none",
    ]);
    await saveScreenshot(page, "members-stacked-390");
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it("fits the sign-up page and an invitation link in 1440 and 390 px, saving a screenshot of each", async () => {
    const link = await inviteMember(ui.page, "screens.invitee@example.com", "viewer");
    const visitor = await newConsolePage(ui.browser);
    try {
      await visitor.goto("/sign-up");
      await visitor.getByRole("heading", { name: "Create your account" }).waitFor();
      expect(await saveScreenshotsAtWidths(visitor, "page-sign-up")).toEqual({ 1440: 0, 390: 0 });
      await visitor.goto(link);
      await waitOrExplain(
        visitor,
        visitor.getByRole("link", { name: "Create an account" }),
        "screens-invitation",
      );
      expect(await visitor.textContent("body")).toContain("screens.invitee@example.com");
      expect(await saveScreenshotsAtWidths(visitor, "page-invitation")).toEqual({ 1440: 0, 390: 0 });
    } finally {
      await visitor.context().close();
    }
  });

  it("renders the API reference with schemas, curl and a try-it client that calls our API", async () => {
    const { page } = ui;
    const baseUrl = inject("baseUrl");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/api-keys");
    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Key name").fill("try-it");
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByLabel("New API key secret").inputValue();
    expect(secret.length).toBeGreaterThan(20);
    // Copying says so in a toast (Radix), and the clipboard holds the secret.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    await page.getByRole("button", { name: "Copy", exact: true }).first().click();
    await page
      .getByRole("region", { name: /^Notifications/ })
      .getByText("Copied to the clipboard.")
      .waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    await page.goto("/api-reference");
    const reference = page.locator(".lastword-api-reference");
    await reference.getByText("Lastword API").first().waitFor();
    await reference.getByRole("button", { name: "Open Group - topics" }).click();
    await reference.getByRole("complementary").locator('a[href="#tag/topics/POST/topics"]').click();
    // The topics operations: their request snippets in curl against our origin, and their schemas.
    const createSnippet = (codes: string[]) =>
      codes.some(
        (code) => code.startsWith(`curl ${baseUrl}/api/v1/topics `) && code.includes("--request POST"),
      );
    await expect
      .poll(async () => createSnippet(await reference.getByRole("code").allTextContents()))
      .toBe(true);
    // The request body in the snippet is the schema's example (zod meta), not a placeholder.
    const snippet = (await reference.getByRole("code").allTextContents()).find(
      (code) => code.startsWith(`curl ${baseUrl}/api/v1/topics `) && code.includes("--request POST"),
    );
    expect(snippet).toContain('"preset": "gdpr-table"');
    expect(snippet).toContain('"min.cleanable.dirty.ratio": "0.1"');
    await expect.poll(async () => (await reference.textContent()) ?? "").toContain("cleanupPolicy");
    await saveScreenshot(page, "api-reference-topics");

    // Try it: the first operation (GET /tenant) sent from the page with the key, answered by our API.
    await reference
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click();
    const client = page.getByRole("dialog", { name: "API Client" });
    await client.getByRole("textbox", { name: "Bearer Token" }).fill(secret);
    const answered = page.waitForResponse(
      (response) => response.url() === `${baseUrl}/api/v1/tenant` && response.request().method() === "GET",
    );
    await client.getByRole("button", { name: `Send get request to ${baseUrl}/api/v1/tenant` }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue("authorization")).toBe(`Bearer ${secret}`);
    await client.getByRole("region", { name: "Response" }).getByText("Screen Tester").first().waitFor();
    await saveScreenshot(page, "api-reference-try-it");
  });
});
