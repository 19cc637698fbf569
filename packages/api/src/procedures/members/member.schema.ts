import { z } from "zod";

export const assignableRoleSchema = z.enum(["admin", "developer", "compliance", "viewer"]);
