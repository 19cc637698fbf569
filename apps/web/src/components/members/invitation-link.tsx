"use client";

import { CopyField } from "../ui/copy-field";

/**
 * Where an invited person accepts. The link carries the invitation's secret token and is shown
 * only once, right after inviting (Lastword sends no invitation email); the inviter passes it on.
 */
export function InvitationLink({ link, email }: { link: string; email: string }) {
  return <CopyField label={`Invitation link for ${email}`} value={link} />;
}
