import { z } from "zod";

export const MAX_TENANT_NAME_LENGTH = 100;

export const renameTenantInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter the organization's name.")
    .max(MAX_TENANT_NAME_LENGTH, `An organization's name is at most ${MAX_TENANT_NAME_LENGTH} characters.`)
    .meta({ example: "Acme Payments" }),
});

export const renameTenantOutput = z.object({
  name: z.string(),
  changed: z.boolean().meta({ description: "false when the name was already this (nothing recorded)" }),
});
