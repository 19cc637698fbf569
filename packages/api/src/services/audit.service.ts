// The hash chain is shared with the workers (they record erasure progress), so it lives in @lastword/db.
export {
  type AuditActor,
  type AuditEventInput,
  type AuditTx,
  appendAuditEvent,
  type ChainedFields,
  canonicalJson,
  eventHash,
  GENESIS_HASH,
  verifyAuditChain,
} from "@lastword/db";
