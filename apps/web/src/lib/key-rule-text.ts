import type { KeyRule } from "@lastword/api/access-rules";

/**
 * A rule's name as people type it in the console: `orders.*` for a prefix, `orders` for a literal
 * name, `*` for everything (Kafka's wildcard). The API keeps a prefix rule's name without the star.
 */
export function ruleNameText(rule: Pick<KeyRule, "patternType" | "name">): string {
  return rule.patternType === "prefixed" ? `${rule.name}*` : rule.name;
}

/** The pattern and name a typed text stands for (a trailing `*` makes a prefix rule). */
export function ruleFromText(text: string): Pick<KeyRule, "patternType" | "name"> {
  const trimmed = text.trim();
  if (trimmed !== "*" && trimmed.endsWith("*"))
    return { patternType: "prefixed", name: trimmed.slice(0, -1) };
  return { patternType: "literal", name: trimmed };
}
