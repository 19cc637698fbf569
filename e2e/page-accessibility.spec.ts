import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./accessibility";
import {
  callTrpc,
  compactedTopic,
  inviteMember,
  newAccount,
  newConsolePage,
  queryTrpc,
  SCREEN_WIDTHS,
  saveScreenshot,
  submitAuthForm,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { uniqueTopicName } from "./topic-actions";

// console-parity.spec.ts checks the console's own pages; these are the pages outside its list: the
// signed-out forms, an invitation (before and after the invitee has an account), and the
// compliance officer's request and audit pages.
const TOPIC = uniqueTopicName("axe");
const OWNER = "Axe Owner";
const SCHEMES = ["light", "dark"] as const;

type Findings = Record<string, unknown>;

/**
 * Runs axe-core on the page at each width and colour scheme once `ready` shows, keeping a
 * screenshot of each; adds what it finds to `found` under `name@width/scheme`.
 */
async function checkEverywhere(page: Page, name: string, ready: Locator, found: Findings): Promise<void> {
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of SCREEN_WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await waitOrExplain(page, ready, `axe-${name}`);
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[`${name}@${width}/${scheme}`] = violations;
      await saveScreenshot(page, `axe-${name}-${width}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe("axe-core on the sign-in, sign-up, invitation, erasure request and audit pages", () => {
  const ui = useConsolePage({ account: OWNER, topics: [compactedTopic(TOPIC)] });

  it("finds no serious or critical violation on an erasure request's page or the audit log", async () => {
    const { page } = ui;
    const key = { type: "string", data: "subject-1" };
    expect(
      await callTrpc(page, "records.produce", {
        topic: TOPIC,
        records: [{ key, value: { type: "string", data: "v" } }],
      }),
    ).toBe(200);
    expect(await callTrpc(page, "erasure.create", { keys: [key], topics: [TOPIC] })).toBe(200);
    const { requests } = await queryTrpc<{ requests: { id: string }[] }>(page, "erasure.list", { limit: 1 });
    const id = requests[0]?.id;
    expect(id).toBeTruthy();

    const found: Findings = {};
    await page.goto(`/compliance/requests/${id}`);
    await checkEverywhere(page, "erasure-request", page.getByRole("heading", { name: "Timeline" }), found);
    await page.goto("/compliance/audit");
    await checkEverywhere(page, "audit-log", page.getByRole("form", { name: "Filter audit events" }), found);
    expect(found).toEqual({});
  });

  it("finds none on sign-in, sign-up and an invitation, signed out and once the invitee has an account", async () => {
    const invitee = newAccount("Axe Invitee");
    const link = await inviteMember(ui.page, invitee.email, "viewer");
    const visitor = await newConsolePage(ui.browser);
    const found: Findings = {};

    await visitor.goto("/sign-in");
    await checkEverywhere(visitor, "sign-in", visitor.getByRole("button", { name: "Sign in" }), found);
    await visitor.goto("/sign-up");
    await checkEverywhere(visitor, "sign-up", visitor.getByRole("button", { name: "Create account" }), found);
    await visitor.goto(link);
    const signedOut = visitor.getByRole("link", { name: "Create an account" });
    await checkEverywhere(visitor, "invitation-signed-out", signedOut, found);

    await signedOut.click();
    await visitor.waitForURL("**/sign-up?**");
    await visitor.getByLabel("Name", { exact: true }).fill(invitee.name);
    await visitor.getByLabel("Password", { exact: true }).fill(invitee.password);
    await submitAuthForm(visitor, "Create account", "**/invitations/*");
    const accept = visitor.getByRole("button", { name: `Accept and join ${OWNER}` });
    await checkEverywhere(visitor, "invitation-accept", accept, found);
    expect(found).toEqual({});

    // The page still does its job after the checks: accepting joins the organization.
    await accept.click();
    await visitor.waitForURL("**/topics");
  });
});
