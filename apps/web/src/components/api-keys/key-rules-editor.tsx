"use client";

import { type KeyRule, MAX_RULES_PER_KEY, RESOURCE_TYPES, RULE_OPERATIONS } from "@lastword/api/access-rules";
import { ruleFromText, ruleNameText } from "@/lib/key-rule-text";
import { Button } from "../ui/button";
import { SelectField, TextField } from "../ui/field";

const OPERATION_LABELS: Record<KeyRule["operation"], string> = {
  read: "read",
  write: "write",
  admin: "admin (everything)",
};

/**
 * The topic and group rules of a key, edited in place: each row allows one operation on the
 * topics (or groups) one name or prefix (`orders.*`) matches. No rule of a type leaves the key
 * unlimited on that type, as the API treats it.
 */
export function KeyRulesEditor({
  rules,
  onChange,
  idPrefix,
}: {
  rules: KeyRule[];
  onChange: (rules: KeyRule[]) => void;
  idPrefix: string;
}) {
  const update = (index: number, change: Partial<KeyRule>) =>
    onChange(rules.map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const add = () =>
    onChange([...rules, { resourceType: "topic", patternType: "literal", name: "", operation: "read" }]);
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={`${idPrefix}-rules-hint`}>
      <legend className="mb-1 text-sm font-medium">Topic and group rules</legend>
      <p id={`${idPrefix}-rules-hint`} className="text-xs text-muted">
        Without rules the key acts on every topic and group its scopes allow. Its first topic rule limits it
        to the topics its rules name (likewise for groups); end a name with * for a prefix, for example
        orders.*. Over Kafka these are its ACLs (User:key id).
      </p>
      {rules.map((rule, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own until saved
        <div key={index} className="grid items-end gap-2 sm:grid-cols-[8rem_1fr_10rem_auto]">
          <SelectField
            label={`Rule ${index + 1}: resource`}
            value={rule.resourceType}
            options={RESOURCE_TYPES}
            onChange={(event) =>
              update(index, { resourceType: event.target.value as KeyRule["resourceType"] })
            }
          />
          <TextField
            label={`Rule ${index + 1}: name or prefix*`}
            value={ruleNameText(rule)}
            required
            maxLength={250}
            onChange={(event) => update(index, ruleFromText(event.target.value))}
          />
          <SelectField
            label={`Rule ${index + 1}: allows`}
            value={rule.operation}
            options={RULE_OPERATIONS.map((value) => ({ value, label: OPERATION_LABELS[value] }))}
            onChange={(event) => update(index, { operation: event.target.value as KeyRule["operation"] })}
          />
          <Button
            type="button"
            variant="secondary"
            onClick={() => onChange(rules.filter((_, i) => i !== index))}
          >
            Remove rule {index + 1}
          </Button>
        </div>
      ))}
      <div>
        <Button type="button" variant="secondary" onClick={add} disabled={rules.length >= MAX_RULES_PER_KEY}>
          Add a rule
        </Button>
      </div>
    </fieldset>
  );
}
