import { z } from "zod";

export const groupNameSchema = z
  .string()
  .min(1)
  .max(249)
  .regex(/^[a-zA-Z0-9._-]+$/, "may contain only letters, digits, '.', '_' and '-'");

/** A stored committed offset as the API shows it (committedPosition in @lastword/db says why null). */
export const committedOffsetSchema = z.number().int().nullable().meta({
  description:
    "Committed: the next offset the group reads; null when a Kafka client committed -1 or -2 (no position: its offset reset policy decides where it starts, and there is no lag)",
});
