import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, newConsolePage, saveScreenshotsAtWidths } from "./console-session";

describe("small console defects", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await newConsolePage(browser);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("has a favicon: every page links app/icon.svg and it is served as SVG", async () => {
    await page.goto("/sign-in");
    const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
    expect(href).toMatch(/^\/icon\.svg/);
    const icon = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
    }, href ?? "");
    expect(icon.status).toBe(200);
    expect(icon.type).toContain("image/svg+xml");
    expect(icon.body).toContain("<svg");
    const overflow = await saveScreenshotsAtWidths(page, "sign-in-with-favicon");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
