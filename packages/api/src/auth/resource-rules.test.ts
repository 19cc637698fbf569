import { describe, expect, it } from "vitest";
import { actRefusal, effectiveScopes } from "./act-authorization";
import { type KeyRule, ruleCovers, rulesAllow, rulesWithin } from "./resource-rules";

const rule = (r: Partial<KeyRule>): KeyRule => ({
  resourceType: "topic",
  patternType: "literal",
  name: "orders",
  operation: "read",
  ...r,
});

describe("resource rules", () => {
  it("a type without rules is unlimited; the first rule of a type limits it to what its rules match", () => {
    const rules = [rule({ patternType: "prefixed", name: "orders." })];
    expect(rulesAllow(rules, "group", "anything", "write")).toBe(true);
    expect(rulesAllow(rules, "topic", "orders.eu", "read")).toBe(true);
    expect(rulesAllow(rules, "topic", "orders.eu", "describe")).toBe(true);
    expect(rulesAllow(rules, "topic", "orders.eu", "write")).toBe(false);
    expect(rulesAllow(rules, "topic", "billing", "describe")).toBe(false);
    expect(rulesAllow([rule({ name: "*", operation: "admin" })], "topic", "billing", "write")).toBe(true);
  });

  it("a rule covers another when its names contain the other's and its operation is as wide", () => {
    const prefix = rule({ patternType: "prefixed", name: "orders.", operation: "admin" });
    expect(ruleCovers(prefix, rule({ name: "orders.eu", operation: "write" }))).toBe(true);
    expect(ruleCovers(prefix, rule({ patternType: "prefixed", name: "orders.eu." }))).toBe(true);
    expect(ruleCovers(prefix, rule({ patternType: "prefixed", name: "order" }))).toBe(false);
    expect(ruleCovers(prefix, rule({ name: "*" }))).toBe(false);
    expect(ruleCovers(rule({ name: "orders" }), rule({ name: "orders", operation: "write" }))).toBe(false);
    expect(
      ruleCovers(rule({ name: "*", operation: "admin" }), rule({ patternType: "prefixed", name: "x" })),
    ).toBe(true);
  });

  it("a rule-limited granter passes its rules on, and grants only rules within them", () => {
    const held = [rule({ patternType: "prefixed", name: "orders.", operation: "admin" })];
    expect(rulesWithin(held, [])).toEqual(held);
    expect(rulesWithin(held, [rule({ name: "orders.eu" })])).toEqual([rule({ name: "orders.eu" })]);
    expect(rulesWithin(held, [rule({ name: "billing" })])).toBeNull();
    // Groups are not limited for this granter: what is asked for there stands.
    const group = rule({ resourceType: "group", name: "g" });
    expect(rulesWithin(held, [group])).toEqual([...held, group]);
    expect(rulesWithin([], [group])).toEqual([group]);
  });
});

describe("a key's effective scopes and refusals", () => {
  it("are the key's scopes within its creator's role now, nothing once the creator left", () => {
    expect(effectiveScopes(["topics:write", "topics:read"], "viewer")).toEqual(["topics:read"]);
    expect(effectiveScopes(["admin"], "developer")).not.toContain("admin");
    expect(effectiveScopes(["admin"], "owner")).toContain("admin");
    expect(effectiveScopes(["topics:read"], null)).toEqual([]);
  });

  it("a refusal says whether the role, the scope or a rule is what is missing", () => {
    const key = {
      scopes: ["topics:write", "topics:read"] as const,
      creatorRole: "viewer" as const,
      rules: [],
    };
    const demoted = { role: null, scopes: effectiveScopes(key.scopes, key.creatorRole), key };
    expect(actRefusal(demoted, { scope: "topics:write" })?.message).toContain(
      "creator's current role (viewer)",
    );
    expect(actRefusal(demoted, { scope: "records:read" })?.message).toContain("lacks the records:read scope");
    const limited = {
      role: null,
      scopes: ["topics:read" as const],
      key: { scopes: ["topics:read" as const], creatorRole: "admin" as const, rules: [rule({})] },
    };
    expect(
      actRefusal(limited, { scope: "topics:read", resources: [{ type: "topic", name: "orders" }] }),
    ).toBeNull();
    // A topic's latest-value view is that topic.
    expect(
      actRefusal(limited, { scope: "topics:read", resources: [{ type: "topic", name: "orders.latest" }] }),
    ).toBeNull();
    expect(
      actRefusal(limited, { scope: "topics:read", resources: [{ type: "topic", name: "billing" }] })?.details,
    ).toEqual({
      requiredScope: "topics:read",
      resource: { type: "topic", name: "billing", operation: "describe" },
    });
  });
});
