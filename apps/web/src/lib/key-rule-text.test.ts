import { describe, expect, it } from "vitest";
import { ruleFromText, ruleNameText } from "./key-rule-text";

describe("a rule's name as typed", () => {
  it("a trailing star is a prefix, a lone star every name, anything else a literal name; and back", () => {
    expect(ruleFromText("orders.*")).toEqual({ patternType: "prefixed", name: "orders." });
    expect(ruleFromText(" *")).toEqual({ patternType: "literal", name: "*" });
    expect(ruleFromText("billing")).toEqual({ patternType: "literal", name: "billing" });
    for (const text of ["orders.*", "*", "billing"]) expect(ruleNameText(ruleFromText(text))).toBe(text);
  });
});
