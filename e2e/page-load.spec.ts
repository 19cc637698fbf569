import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { useConsolePage } from "./console-session";

// Every console page must show its own content; how fast is recorded (test-artifacts/page-load.json,
// for the README) but not asserted: on a shared machine a time budget fails for the load beside
// the test, not for the page.

interface PageLoad {
  path: string;
  /** Navigation start to the page's own content being on screen, client-fetched data included. */
  readyMs: number;
  /** Navigation Timing: response end and DOMContentLoaded, relative to navigation start. */
  responseEndMs: number;
  domContentLoadedMs: number;
}

async function measure(page: Page, path: string, ready: (page: Page) => Locator): Promise<PageLoad> {
  const started = Date.now();
  await page.goto(path);
  await ready(page).waitFor();
  const readyMs = Date.now() - started;
  const timing = JSON.parse(
    String(await page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")),
  ) as { responseEnd: number; domContentLoadedEventEnd: number };
  return {
    path,
    readyMs,
    responseEndMs: Math.round(timing.responseEnd),
    domContentLoadedMs: Math.round(timing.domContentLoadedEventEnd),
  };
}

describe("page load", () => {
  const ui = useConsolePage({
    account: "Speed Tester",
    topics: [{ name: "clicks", partitions: 2, cleanupPolicy: "compact" }],
  });

  it("shows each console page's content, warm, and records how long each took", async () => {
    // Every console page, plus the two auth-side pages a new person sees first.
    const pages = [
      { path: "/topics", ready: (p: Page) => p.getByRole("table", { name: "Topics" }) },
      { path: "/topics/clicks", ready: (p: Page) => p.getByRole("table", { name: "Partitions" }) },
      { path: "/api-keys", ready: (p: Page) => p.getByRole("status").filter({ hasText: "no API keys yet" }) },
      {
        path: "/compliance",
        ready: (p: Page) =>
          p.getByRole("status").filter({ hasText: "No erasure request has been filed yet." }),
      },
      { path: "/members", ready: (p: Page) => p.getByRole("table", { name: "Members" }) },
      { path: "/api-reference", ready: (p: Page) => p.getByRole("heading", { name: "API reference" }) },
      {
        path: "/invitations/unknown-invitation",
        ready: (p: Page) => p.getByRole("heading", { name: "Invitation not found" }),
      },
      { path: "/sign-up", ready: (p: Page) => p.getByRole("button", { name: "Create account" }) },
    ];
    // One unmeasured pass: the first request of each route in a fresh `next start` pays for
    // loading its server chunks, which says nothing about a running service.
    for (const { path } of pages) await ui.page.goto(path);
    const loads: PageLoad[] = [];
    for (const { path, ready } of pages) loads.push(await measure(ui.page, path, ready));

    const dir = inject("artifactsDir");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "page-load.json"), `${JSON.stringify(loads, null, 2)}\n`);
    expect(loads.map((load) => load.path)).toEqual(pages.map((p) => p.path));
    // The navigation entry read is the measured one: its response ended before its DOM was loaded.
    for (const load of loads) {
      expect(load.responseEndMs, load.path).toBeGreaterThan(0);
      expect(load.responseEndMs, load.path).toBeLessThanOrEqual(load.domContentLoadedMs);
    }
  });
});
