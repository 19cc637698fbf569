import type { AppRouter } from "@lastword/api";
import type { inferRouterInputs } from "@trpc/server";

/** Roles an owner or admin can give; "owner" is only the tenant's creator. */
export type AssignableRole = inferRouterInputs<AppRouter>["members"]["invite"]["role"];

export const ASSIGNABLE_ROLES: readonly AssignableRole[] = ["admin", "developer", "compliance", "viewer"];

export function isAssignableRole(role: string): role is AssignableRole {
  return (ASSIGNABLE_ROLES as readonly string[]).includes(role);
}
