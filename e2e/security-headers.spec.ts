import { beforeAll, describe, expect, it } from "vitest";
import { createTopic, newAccount, signUp, useConsolePage } from "./console-session";

// The console's pages carry the security headers, and its CSP blocks nothing the console needs:
// every page renders and hydrates (a click works) with no CSP violation reported.
describe("security headers", () => {
  const ui = useConsolePage();
  const violations: string[] = [];

  beforeAll(async () => {
    const page = ui.page;
    page.on("console", (message) => {
      if (/content security policy/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction("reportCspViolation", (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const report = (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation;
        report(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
  });

  it("sends CSP, frame, sniffing and referrer headers on console and auth pages", async () => {
    for (const path of ["/sign-up", "/sign-in"]) {
      const response = await ui.page.goto(path);
      const headers = response!.headers();
      expect(headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(headers["content-security-policy"], path).toContain("script-src 'self'");
      expect(headers["x-frame-options"], path).toBe("DENY");
      expect(headers["x-content-type-options"], path).toBe("nosniff");
      expect(headers["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
    }
  });

  it("loads, hydrates and works under the policy with no violation", async () => {
    await signUp(ui.page, newAccount("Header Checker"));
    await createTopic(ui.page, { name: "csp-check", partitions: 1, cleanupPolicy: "compact" });
    for (const path of [
      "/topics",
      "/topics/csp-check",
      "/api-keys",
      "/compliance",
      "/members",
      "/api-reference",
    ]) {
      const response = await ui.page.goto(path);
      expect(response!.headers()["content-security-policy"], path).toContain("default-src 'self'");
      await ui.page.getByRole("navigation", { name: "Console" }).waitFor();
    }
    expect(violations).toEqual([]);
  });
});
