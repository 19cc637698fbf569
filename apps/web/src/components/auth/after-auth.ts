/**
 * Where a sign-in or sign-up continues: the invitation the visitor came from (with its link's
 * token, which accepting needs unless the address is verified), else the console. Only an
 * invitation id and token are carried (never a URL), so the forms cannot redirect off-site.
 */
export function afterAuthPath(entry: Pick<AuthEntry, "invitationId" | "token">): string {
  if (!entry.invitationId) return "/topics";
  const path = `/invitations/${encodeURIComponent(entry.invitationId)}`;
  return entry.token ? `${path}?${new URLSearchParams({ token: entry.token })}` : path;
}

/** The optional `invitation`, `token` and `email` query parameters the invitation page links with. */
export interface AuthEntry {
  invitationId?: string;
  token?: string;
  email?: string;
}

export function authEntry(searchParams: Record<string, string | string[] | undefined>): AuthEntry {
  const one = (value: string | string[] | undefined) =>
    typeof value === "string" && value !== "" ? value : undefined;
  return {
    invitationId: one(searchParams.invitation),
    token: one(searchParams.token),
    email: one(searchParams.email),
  };
}

/** Keeps the invitation when the visitor moves between sign-in and sign-up. */
export function authEntryQuery(entry: AuthEntry): string {
  const query = new URLSearchParams();
  if (entry.invitationId) query.set("invitation", entry.invitationId);
  if (entry.token) query.set("token", entry.token);
  if (entry.email) query.set("email", entry.email);
  const text = query.toString();
  return text ? `?${text}` : "";
}
