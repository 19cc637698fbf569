/**
 * Where a sign-in or sign-up continues: the invitation the visitor came from, else the console.
 * Only an invitation id is carried (never a URL), so the forms cannot be used to redirect off-site.
 */
export function afterAuthPath(invitationId: string | undefined): string {
  return invitationId ? `/invitations/${encodeURIComponent(invitationId)}` : "/topics";
}

/** The optional `invitation` and `email` query parameters the invitation page links with. */
export interface AuthEntry {
  invitationId?: string;
  email?: string;
}

export function authEntry(searchParams: Record<string, string | string[] | undefined>): AuthEntry {
  const one = (value: string | string[] | undefined) =>
    typeof value === "string" && value !== "" ? value : undefined;
  return { invitationId: one(searchParams.invitation), email: one(searchParams.email) };
}

/** Keeps the invitation when the visitor moves between sign-in and sign-up. */
export function authEntryQuery(entry: AuthEntry): string {
  const query = new URLSearchParams();
  if (entry.invitationId) query.set("invitation", entry.invitationId);
  if (entry.email) query.set("email", entry.email);
  const text = query.toString();
  return text ? `?${text}` : "";
}
