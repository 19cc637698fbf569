import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { eventually } from "@lastword/db/testing";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/**
 * Debian's chromium-headless-shell (the same Chromium build in its old headless mode, which is what
 * Playwright itself runs headless by default) when it is installed, as CI installs it: the full
 * browser's new headless mode took ~20–30 % more CPU for the same spec (topic-page 60 → 43 CPU
 * seconds, console-screens 63 → 53), and the e2e specs were CI's largest CPU cost, most of it
 * Chromium's. Debian's `chromium` otherwise.
 */
const CHROMIUM = ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"].find((path) =>
  existsSync(path),
);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

export async function newConsolePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    baseURL: inject("baseUrl"),
    viewport: { width: 1280, height: 800 },
  });
  return context.newPage();
}

export interface Account {
  name: string;
  email: string;
  password: string;
}

/** A fresh account per test, so specs never depend on each other's data. */
export function newAccount(name: string): Account {
  const tag = randomBytes(4).toString("hex");
  return { name, email: `e2e-${tag}@example.com`, password: `pw-${randomBytes(8).toString("hex")}` };
}

// The API allows 3 sign-ins/sign-ups per 10 s per client address (@lastword/api
// auth/auth-rate-limit.ts, better-auth's own numbers); every test browser here
// shares 127.0.0.1, so a spec that signs up several accounts may be refused for a while. A refused
// attempt does not move the window, so the form is sent again until the server takes it.
const AUTH_RATE_WINDOW_MS = 10_000;
const RATE_LIMITED = "rate limited";

/** The form's own error; Next's route announcer is also role=alert, but lives outside forms. */
export function formAlert(page: Page): Locator {
  return page.locator("form").getByRole("alert");
}

/** Submits the form once: "arrived", RATE_LIMITED, or what went wrong, from the server's answer. */
async function submitOnce(page: Page, button: string, arrival: string): Promise<string> {
  const answered = page.waitForResponse(
    (response) => response.request().method() === "POST" && response.url().includes("/api/auth/sign-"),
  );
  await page.getByRole("button", { name: button }).click();
  const response = await answered;
  if (response.status() === 429) return RATE_LIMITED;
  if (!response.ok()) return `${response.status()} ${await response.text()}`;
  return page.waitForURL(arrival).then(
    () => "arrived",
    () => `answered ${response.status()}, but ${arrival} never appeared`,
  );
}

/**
 * Submits a sign-in or sign-up form and waits for where it leads (the console, or the invitation
 * the visitor came from), sending it again while the server's rate window refuses it.
 */
export async function submitAuthForm(page: Page, button: string, arrival = "**/topics"): Promise<void> {
  // `eventually`, not expect.poll: this also runs in beforeAll hooks, outside any test.
  const outcome = await eventually(`${button} past the rate limit`, 3 * AUTH_RATE_WINDOW_MS, async () => {
    const answer = await submitOnce(page, button, arrival);
    return answer === RATE_LIMITED ? undefined : answer;
  });
  if (outcome !== "arrived") throw new Error(`${button} failed: ${outcome}`);
}

export async function signUp(page: Page, account: Account): Promise<void> {
  await page.goto("/sign-up");
  await page.getByLabel("Name", { exact: true }).fill(account.name);
  await page.getByLabel("Email", { exact: true }).fill(account.email);
  await page.getByLabel("Password", { exact: true }).fill(account.password);
  await submitAuthForm(page, "Create account");
}

export interface ConsoleTopic {
  name: string;
  partitions: number;
  cleanupPolicy: "compact" | "delete" | "compact,delete";
}

/** A compacted topic, the kind most specs browse. */
export const compactedTopic = (name: string, partitions = 1): ConsoleTopic => ({
  name,
  partitions,
  cleanupPolicy: "compact",
});

/** A delete-policy topic: what the specs set against a compacted one. */
export const deletePolicyTopic = (name: string, partitions = 1): ConsoleTopic => ({
  name,
  partitions,
  cleanupPolicy: "delete",
});

export async function createTopic(page: Page, topic: ConsoleTopic): Promise<void> {
  await page.goto("/topics");
  const form = page.getByRole("form", { name: "Create a topic" });
  await form.getByLabel("Topic name").fill(topic.name);
  await form.getByLabel("Partitions").fill(String(topic.partitions));
  await form.getByLabel("Cleanup policy").selectOption(topic.cleanupPolicy);
  await form.getByRole("button", { name: "Create topic" }).click();
  // A created topic opens its own page.
  await page.getByRole("heading", { name: topic.name, level: 1 }).waitFor();
}

/**
 * Waits for `locator`; when it never shows, fails with what the page announced instead (its
 * role=alert texts) and a screenshot, so a broken flow says why rather than only "timeout".
 */
export async function waitOrExplain(page: Page, locator: Locator, name: string): Promise<void> {
  try {
    await locator.waitFor({ timeout: 30_000 });
  } catch (error) {
    const alerts = (await page.getByRole("alert").allTextContents()).filter((text) => text.trim() !== "");
    const screenshot = await saveScreenshot(page, `failed-${name}`);
    const said = alerts.length > 0 ? `the page said: ${alerts.join(" | ")}` : "the page showed no error";
    throw new Error(`${name}: ${said} (screenshot ${screenshot})`, { cause: error });
  }
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const dir = inject("artifactsDir");
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The widths the console is checked at: a laptop and a phone. */
export const SCREEN_WIDTHS = [1440, 390] as const;

/**
 * Saves `name-1440.png` and `name-390.png` and returns how far the page scrolls sideways at each
 * width (0 when it fits), then restores the viewport it found.
 */
export async function saveScreenshotsAtWidths(page: Page, name: string): Promise<Record<number, number>> {
  const before = page.viewportSize();
  const overflow: Record<number, number> = {};
  for (const width of SCREEN_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Layout follows the resize over a few frames (resize observers re-render): give it until
    // the page fits, then measure what is left.
    await page
      .waitForFunction(
        () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        undefined,
        {
          timeout: 3_000,
          polling: "raf",
        },
      )
      .catch(() => undefined);
    overflow[width] = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    if (overflow[width] > 0) console.warn(`${name} at ${width} px: too wide:`, await widestElements(page));
    await saveScreenshot(page, `${name}-${width}`);
  }
  if (before) await page.setViewportSize(before);
  return overflow;
}

/** The innermost elements that reach past the viewport's right edge, to say what scrolls sideways. */
function widestElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth + 1;
    const wide = [...document.querySelectorAll("body *")].filter(
      (el) => el.getBoundingClientRect().right > edge,
    );
    return wide
      .filter((el) => ![...el.children].some((child) => wide.includes(child)))
      .sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right)
      .slice(0, 5)
      .map(
        (el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`,
      );
  });
}

/** A describe block's browser and its one console page. */
/** Calls the console's own tRPC endpoint as the page's signed-in member; answers the HTTP status. */
export async function callTrpc(page: Page, path: string, input: unknown): Promise<number> {
  return page.evaluate(
    async ({ path, input }) => {
      const res = await fetch(`/api/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      return res.status;
    },
    { path, input },
  );
}

/** Calls a tRPC query as the signed-in page and answers its data (throws on an error answer). */
export async function queryTrpc<T>(page: Page, path: string, input: unknown): Promise<T> {
  const answer = await page.evaluate(
    async ({ path, input }) => {
      const res = await fetch(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
      return { status: res.status, body: await res.text() };
    },
    { path, input },
  );
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.body}`);
  return (JSON.parse(answer.body) as { result: { data: T } }).result.data;
}

export interface ConsoleUi {
  browser: Browser;
  page: Page;
}

/**
 * Launches Chromium and opens a console page before the block's tests, closing the browser after
 * them; with `account`, the page signs up a new account of that name and creates `topics` through
 * the console first, then opens the page of the topic named `open`. The object is filled in by
 * `beforeAll`: read it inside hooks and tests.
 */
export function useConsolePage(
  options: { account?: string; topics?: ConsoleTopic[]; open?: string } = {},
): ConsoleUi {
  const ui = {} as ConsoleUi;
  beforeAll(async () => {
    ui.browser = await launchChromium();
    ui.page = await newConsolePage(ui.browser);
    if (options.account !== undefined) await signUp(ui.page, newAccount(options.account));
    for (const topic of options.topics ?? []) await createTopic(ui.page, topic);
    if (options.open !== undefined) {
      await ui.page.goto(`/topics/${options.open}`);
      await ui.page.getByRole("heading", { name: options.open, level: 1 }).waitFor();
    }
  });
  afterAll(async () => {
    await ui.browser?.close();
  });
  return ui;
}

/**
 * `useConsolePage` for a spec about one compacted topic's page: a new account named `account`
 * creates the topic and opens its page.
 */
export function useTopicPage(account: string, topic: string, partitions = 1): ConsoleUi {
  return useConsolePage({ account, topics: [compactedTopic(topic, partitions)], open: topic });
}

/** The owner invites `email` with `role` through the members page; returns the invitation link. */
export async function inviteMember(owner: Page, email: string, role: string): Promise<string> {
  await owner.goto("/members");
  const form = owner.getByRole("form", { name: "Invite a member" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption(role);
  await form.getByRole("button", { name: "Send invitation" }).click();
  const link = owner.getByRole("textbox", { name: `Invitation link for ${email}`, exact: true });
  await link.waitFor();
  return link.inputValue();
}

/** Signs up from an invitation link and joins the inviting organization. */
export async function joinFromInvitation(
  page: Page,
  link: string,
  person: Account,
  organization: string,
): Promise<void> {
  await page.goto(link);
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.waitForURL("**/sign-up?**");
  await page.getByLabel("Name", { exact: true }).fill(person.name);
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await submitAuthForm(page, "Create account", "**/invitations/*");
  await page.getByRole("button", { name: `Accept and join ${organization}` }).click();
  await page.waitForURL("**/topics");
}

/**
 * A new member: `owner` invites `person` with `role`, and `person` signs up from the link on a page
 * of their own in `browser` and joins `organization`, the owner's. Answers that page.
 */
export async function addMember(
  owner: Page,
  browser: Browser,
  person: Account,
  role: string,
  organization: string,
): Promise<Page> {
  const link = await inviteMember(owner, person.email, role);
  const page = await newConsolePage(browser);
  await joinFromInvitation(page, link, person, organization);
  return page;
}
