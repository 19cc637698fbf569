import { randomBytes } from "node:crypto";
import { DEV_INTERNAL_SECRET } from "@lastword/dataplane/dev-secret";
import { describe, expect, it } from "vitest";
import { parseServerEnv } from "./env";

const AUTH_SECRET = randomBytes(32).toString("hex");
const INTERNAL_SECRET = randomBytes(16).toString("hex");

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
        BETTER_AUTH_SECRET: AUTH_SECRET,
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
      BETTER_AUTH_SECRET: AUTH_SECRET,
      LASTWORD_INTERNAL_SECRET: INTERNAL_SECRET,
      PUBLIC_URL: "https://console.example.com",
    });
    expect(env.BETTER_AUTH_SECRET).toBe(AUTH_SECRET);
    expect(env.LASTWORD_INTERNAL_SECRET).toBe(INTERNAL_SECRET);
    expect(env.PUBLIC_URL).toBe("https://console.example.com");
  });

  it.each([
    [
      "the old compose default",
      "change-me-auth-secret-at-least-32-chars",
      /BETTER_AUTH_SECRET is a public default/,
    ],
    [
      "the development fallback",
      "lastword-development-secret-not-for-production",
      /BETTER_AUTH_SECRET is a public default/,
    ],
    ["a placeholder", "please-change-me-before-going-live-0123", /BETTER_AUTH_SECRET is a placeholder/],
    ["a pattern", "a".repeat(32), /BETTER_AUTH_SECRET has fewer than 8 distinct characters/],
    ["a short cycle", "abcabcabcabcabcabcabcabcabcabcabc", /BETTER_AUTH_SECRET has fewer than 8 distinct/],
  ])("refuses %s as the auth secret in production, and takes it in development", (_, secret, reason) => {
    expect(() =>
      parseServerEnv({
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: secret,
        LASTWORD_INTERNAL_SECRET: INTERNAL_SECRET,
      }),
    ).toThrow(reason);
    expect(parseServerEnv({ NODE_ENV: "development", BETTER_AUTH_SECRET: secret }).BETTER_AUTH_SECRET).toBe(
      secret,
    );
  });

  it("refuses the old compose default as the data-plane secret in production", () => {
    expect(() =>
      parseServerEnv({
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: AUTH_SECRET,
        LASTWORD_INTERNAL_SECRET: "change-me-internal-secret",
      }),
    ).toThrow(/LASTWORD_INTERNAL_SECRET is a public default/);
  });

  it("trusts no proxy by default, reads a CIDR list, and refuses a malformed entry by name", () => {
    expect(parseServerEnv({}).trustedProxies.entries).toEqual([]);
    const env = parseServerEnv({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" });
    expect(env.trustedProxies.contains("10.9.8.7")).toBe(true);
    expect(env.trustedProxies.contains("192.0.2.1")).toBe(false);
    expect(() => parseServerEnv({ TRUST_PROXY: "10.0.0.0/8, proxy.internal" })).toThrow(
      /TRUST_PROXY: TRUST_PROXY entry "proxy.internal" is not an IP address or CIDR range/,
    );
  });

  it("takes a positive MAX_ORGANIZATIONS_PER_USER, else leaves the API's default", () => {
    expect(parseServerEnv({ MAX_ORGANIZATIONS_PER_USER: "5" }).MAX_ORGANIZATIONS_PER_USER).toBe(5);
    expect(parseServerEnv({}).MAX_ORGANIZATIONS_PER_USER).toBeUndefined();
    expect(() => parseServerEnv({ MAX_ORGANIZATIONS_PER_USER: "0" })).toThrow(/MAX_ORGANIZATIONS_PER_USER/);
  });

  it("rejects a malformed database URL", () => {
    expect(() => parseServerEnv({ DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
  });
});
