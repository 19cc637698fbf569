import { DEV_INTERNAL_SECRET } from "@lastword/dataplane/dev-secret";
import { describe, expect, it } from "vitest";
import { parseServerEnv } from "./env";

describe("parseServerEnv", () => {
  it("falls back to local services and a development secret outside production", () => {
    const env = parseServerEnv({ NODE_ENV: "development" });
    expect(env.DATABASE_URL).toBe("postgresql://postgres@127.0.0.1:5432/lastword");
    expect(env.REDIS_PREFIX).toBe("lastword");
    expect(env.BETTER_AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    // The worker falls back to the same one; a different default fails every data-plane call.
    expect(env.LASTWORD_INTERNAL_SECRET).toBe(DEV_INTERNAL_SECRET);
  });

  it("refuses the development data-plane secret in production", () => {
    expect(() =>
      parseServerEnv({
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "a".repeat(32),
        LASTWORD_INTERNAL_SECRET: DEV_INTERNAL_SECRET,
      }),
    ).toThrow(/LASTWORD_INTERNAL_SECRET must not be the development default/);
  });

  it("refuses to run in production without both secrets, naming each", () => {
    expect(() => parseServerEnv({ NODE_ENV: "production" })).toThrow(
      /BETTER_AUTH_SECRET is required in production.*LASTWORD_INTERNAL_SECRET is required in production/,
    );
  });

  it("keeps the secrets it is given in production", () => {
    const env = parseServerEnv({
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: "a".repeat(32),
      LASTWORD_INTERNAL_SECRET: "b".repeat(16),
      PUBLIC_URL: "https://console.example.com",
    });
    expect(env.BETTER_AUTH_SECRET).toBe("a".repeat(32));
    expect(env.LASTWORD_INTERNAL_SECRET).toBe("b".repeat(16));
    expect(env.PUBLIC_URL).toBe("https://console.example.com");
  });

  it("rejects a malformed database URL", () => {
    expect(() => parseServerEnv({ DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
  });
});
