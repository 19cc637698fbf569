import { SCOPES, scopesOfRole } from "@lastword/api/access-rules";
import { describe, expect, it } from "vitest";
import { API_KEY_SCOPES, defaultScopesFor, grantableBy } from "./api-key-scopes";

const DEVELOPER = scopesOfRole("developer");

describe("API key scopes in the console", () => {
  it("offers every scope the API defines, with reads ticked by default and every write opt-in", () => {
    expect(API_KEY_SCOPES.map((entry) => entry.scope)).toEqual([...SCOPES]);
    expect(API_KEY_SCOPES.filter((entry) => entry.byDefault).map((entry) => entry.scope)).toEqual([
      "topics:read",
      "records:read",
      "groups:read",
    ]);
    for (const entry of API_KEY_SCOPES) if (entry.byDefault) expect(entry.scope).toMatch(/:read$/);
  });

  it("grants nothing above the creator's own role", () => {
    expect(grantableBy("developer", DEVELOPER, "records:write")).toBe(true);
    expect(grantableBy("developer", DEVELOPER, "members:write")).toBe(false);
    expect(grantableBy("developer", DEVELOPER, "admin")).toBe(false);
    expect(grantableBy("admin", ["admin"], "admin")).toBe(true);
    expect(grantableBy("viewer", scopesOfRole("viewer"), "topics:write")).toBe(false);
    expect(grantableBy(null, [], "topics:read")).toBe(false);
  });

  it("narrows the default to what the creator holds", () => {
    expect(
      defaultScopesFor("compliance", ["topics:read", "groups:read", "erasure:read", "erasure:write"]),
    ).toEqual(["topics:read", "groups:read"]);
  });
});
