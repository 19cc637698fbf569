import type { Identity } from "../auth/request-identity";
import { hasScope } from "../auth/scopes";

/** An audit row's parts a caller may or may not see. */
export interface AuditRowParts {
  targetType: string;
  targetId: string | null;
  data: unknown;
}

/**
 * What of the audit trail a caller sees, one rule for the listing and the exports: invitations'
 * ids, e-mail addresses and roles only to those who manage members (`members:write`), as the
 * members list shows them. An invitation id in a link is what a takeover needs next to the
 * address, so the compliance role (`erasure:read`, which reads the trail) sees neither. The row's
 * hashes stay, so the chain's order can still be checked; `redacted` says which rows were cut.
 */
export function auditRowVisibility(identity: Identity) {
  const seesInvitations = hasScope(identity.scopes, "members:write");
  return <R extends AuditRowParts>(row: R): { targetId: string | null; data: unknown; redacted: boolean } => {
    if (seesInvitations) return { targetId: row.targetId, data: row.data, redacted: false };
    if (row.targetType === "invitation") return { targetId: null, data: {}, redacted: true };
    if (isObject(row.data) && "invitationId" in row.data) {
      const { invitationId: _, ...rest } = row.data;
      return { targetId: row.targetId, data: rest, redacted: true };
    }
    return { targetId: row.targetId, data: row.data, redacted: false };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
