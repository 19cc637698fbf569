export const CLEANUP_POLICIES = [
  {
    value: "compact",
    label: "compact",
    explanation: "Keeps at least the latest value of every key, forever.",
  },
  {
    value: "delete",
    label: "delete",
    explanation: "Deletes whole segments once they are older than retention.ms.",
  },
  {
    value: "compact,delete",
    label: "compact,delete",
    explanation: "Keeps the latest value per key, but only within retention.ms.",
  },
] as const;

export type CleanupPolicy = (typeof CLEANUP_POLICIES)[number]["value"];

export function explainPolicy(policy: string): string {
  return CLEANUP_POLICIES.find((entry) => entry.value === policy)?.explanation ?? "";
}
