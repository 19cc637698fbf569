import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// apps/web/server.mjs checks the environment before Next loads a build or anything listens, so
// these run without a build: a refused environment ends the process with the reason.
const serverScript = fileURLToPath(new URL("../../server.mjs", import.meta.url));

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [serverScript], {
    // Only what the test sets: not the developer's own secrets or TRUST_PROXY.
    env: { NODE_ENV: "production", PORT: "0", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("server.mjs", () => {
  it.each([
    [
      "the old compose default",
      "change-me-auth-secret-at-least-32-chars",
      /BETTER_AUTH_SECRET is a public default/,
    ],
    ["a pattern", "ab".repeat(20), /BETTER_AUTH_SECRET has fewer than 8 distinct characters/],
  ])("refuses to start in production with %s as the auth secret", (_, secret, reason) => {
    const run = start({
      BETTER_AUTH_SECRET: secret,
      LASTWORD_INTERNAL_SECRET: randomBytes(16).toString("hex"),
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^lastword web: not starting\. Invalid environment for apps\/web: /);
    expect(run.stderr).toMatch(reason);
  });

  it("refuses a malformed TRUST_PROXY by name", () => {
    const run = start({
      BETTER_AUTH_SECRET: randomBytes(32).toString("hex"),
      LASTWORD_INTERNAL_SECRET: randomBytes(16).toString("hex"),
      TRUST_PROXY: "10.0.0.0/8, everyone",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/TRUST_PROXY entry "everyone"/);
  });
});
