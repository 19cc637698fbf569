/** What an invitation link can lead to, decided before anything about the visitor is known. */
export type InvitationState =
  | { kind: "unknown" }
  | { kind: "accepted"; organizationName: string }
  | { kind: "withdrawn"; organizationName: string }
  | { kind: "expired"; organizationName: string; expiresAt: Date }
  | {
      kind: "pending";
      organizationName: string;
      organizationId: string;
      email: string;
      role: string;
      expiresAt: Date;
    };

export interface InvitationRow {
  organizationId: string;
  email: string;
  role: string | null;
  status: string;
  expiresAt: Date;
  organization: { name: string };
}

/**
 * better-auth's statuses are pending | accepted | rejected | canceled; an expired invitation keeps
 * "pending", so the expiry is checked here too (the same rule better-auth applies on accept).
 */
export function invitationState(row: InvitationRow | null, now: Date): InvitationState {
  if (!row) return { kind: "unknown" };
  const organizationName = row.organization.name;
  if (row.status === "accepted") return { kind: "accepted", organizationName };
  if (row.status !== "pending") return { kind: "withdrawn", organizationName };
  if (row.expiresAt <= now) return { kind: "expired", organizationName, expiresAt: row.expiresAt };
  return {
    kind: "pending",
    organizationName,
    organizationId: row.organizationId,
    email: row.email,
    role: row.role ?? "viewer",
    expiresAt: row.expiresAt,
  };
}
