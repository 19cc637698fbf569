import { z } from "zod";

export const groupNameSchema = z
  .string()
  .min(1)
  .max(249)
  .regex(/^[a-zA-Z0-9._-]+$/, "may contain only letters, digits, '.', '_' and '-'");
