"use client";

import { CopyField } from "../ui/copy-field";

/** Where an invited person accepts; the inviter passes it on (Lastword sends no email). */
export function invitationUrl(invitationId: string): string {
  const path = `/invitations/${encodeURIComponent(invitationId)}`;
  // Rendered only after a client fetch or mutation, so the origin is the browser's own.
  return typeof window === "undefined" ? path : new URL(path, window.location.origin).toString();
}

export function InvitationLink({ invitationId, email }: { invitationId: string; email: string }) {
  return <CopyField label={`Invitation link for ${email}`} value={invitationUrl(invitationId)} />;
}
