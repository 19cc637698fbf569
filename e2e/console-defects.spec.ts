import { describe, expect, it } from "vitest";
import { saveScreenshotsAtWidths, useConsolePage } from "./console-session";

describe("small console defects", () => {
  const ui = useConsolePage();

  it("has a favicon: every page links app/icon.svg and it is served as SVG", async () => {
    await ui.page.goto("/sign-in");
    const href = await ui.page.locator('link[rel="icon"]').first().getAttribute("href");
    expect(href).toMatch(/^\/icon\.svg/);
    const icon = await ui.page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
    }, href ?? "");
    expect(icon.status).toBe(200);
    expect(icon.type).toContain("image/svg+xml");
    expect(icon.body).toContain("<svg");
    const overflow = await saveScreenshotsAtWidths(ui.page, "sign-in-with-favicon");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
