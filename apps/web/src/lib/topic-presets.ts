import type { AppRouter } from "@lastword/api";
import type { inferRouterInputs } from "@trpc/server";

export type TopicPreset = NonNullable<inferRouterInputs<AppRouter>["topics"]["create"]["preset"]>;

/** The create form's presets, each with the one line that says when to pick it. */
export const TOPIC_PRESET_CHOICES: readonly { value: TopicPreset; label: string; explanation: string }[] = [
  {
    value: "state-table",
    label: "State table",
    explanation: "Compacted, cleaned early (dirty ratio 0.1) so a replay from offset 0 stays short.",
  },
  {
    value: "event-stream",
    label: "Event stream",
    explanation: "Keeps every record for 7 days, then deletes it.",
  },
  {
    value: "expiring-state",
    label: "Expiring state",
    explanation: "The latest value per key, but only while it is younger than retention.ms.",
  },
  {
    value: "gdpr-table",
    label: "GDPR table",
    explanation:
      "Compacted, with lag limits that purge an erased key's old values before your erasure deadline.",
  },
];
