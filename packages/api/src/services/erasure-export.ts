import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { toCsv } from "../csv";
import { auditActorNames } from "./audit-actors";
import { auditRowVisibility } from "./audit-visibility";
import { type ErasureDeps, getErasureRequest } from "./erasure.service";

export type ExportFormat = "json" | "csv";

export interface ExportDocument {
  filename: string;
  contentType: string;
  content: string;
}

const EVIDENCE_COLUMNS = [
  "requestId",
  "topic",
  "partition",
  "tombstoneOffset",
  "subjectKey",
  "subjectKeyIsText",
  "subjectKeyBase64",
  "stage",
  "verifiedAt",
  "result",
  "bytesScanned",
  "segmentBaseOffset",
  "segmentLastOffset",
  "segmentSizeBytes",
  "segmentSha256",
] as const;

/** One request's evidence: one row per tombstone, stage and scanned segment (JSON: the full request). */
export async function exportErasureEvidence(
  deps: ErasureDeps,
  identity: Identity,
  input: { id: string; format: ExportFormat },
): Promise<ExportDocument> {
  const request = await getErasureRequest(deps, identity, input.id);
  if (input.format === "json")
    return {
      filename: `erasure-${request.id}.json`,
      contentType: "application/json",
      content: JSON.stringify(request, null, 2),
    };
  const rows: Record<string, unknown>[] = [];
  for (const t of request.tombstones) {
    const stages = [
      ["purge", t.purgedAt, t.purgeEvidence],
      ["tombstone-gone", t.expiredAt, t.expiryEvidence],
    ] as const;
    for (const [stage, at, evidence] of stages) {
      const base = {
        requestId: request.id,
        topic: t.topic,
        partition: t.partition,
        tombstoneOffset: t.offset,
        subjectKey: t.subjectKeyName.text,
        subjectKeyIsText: t.subjectKeyName.isText,
        subjectKeyBase64: t.subjectKeyBase64,
        stage,
        verifiedAt: at,
        result: evidence?.result ?? "pending",
        bytesScanned: evidence?.bytesScanned ?? 0,
      };
      const segments = evidence?.segments ?? [];
      if (segments.length === 0) rows.push(base);
      for (const s of segments)
        rows.push({
          ...base,
          segmentBaseOffset: s.baseOffset,
          segmentLastOffset: s.lastOffset,
          segmentSizeBytes: s.sizeBytes,
          segmentSha256: s.sha256,
        });
    }
  }
  return {
    filename: `erasure-${request.id}.csv`,
    contentType: "text/csv",
    content: toCsv(EVIDENCE_COLUMNS, rows),
  };
}

const TRAIL_COLUMNS = [
  "seq",
  "createdAt",
  "actorType",
  "actorId",
  "actorName",
  "action",
  "targetType",
  "targetId",
  "data",
  "redacted",
  "prevHash",
  "hash",
] as const;

/**
 * The tenant's whole audit trail with both hashes, so an auditor can re-walk the chain offline;
 * invitation ids and addresses only for callers who manage members (audit-visibility.ts), the
 * rows cut for others marked `redacted`.
 */
export async function exportAuditTrail(
  prisma: PrismaClient,
  identity: Identity,
  format: ExportFormat,
): Promise<ExportDocument> {
  const events = await prisma.auditEvent.findMany({
    where: { organizationId: identity.tenantId },
    orderBy: { seq: "asc" },
  });
  const nameOf = await auditActorNames(prisma, identity.tenantId, events);
  const visible = auditRowVisibility(identity);
  const rows = events.map((e) => {
    const shown = visible(e);
    return {
      seq: e.seq,
      createdAt: e.createdAt.toISOString(),
      actorType: e.actorType,
      actorId: e.actorId,
      actorName: nameOf(e).name,
      action: e.action,
      targetType: e.targetType,
      targetId: shown.targetId,
      data: shown.data,
      redacted: shown.redacted,
      prevHash: e.prevHash,
      hash: e.hash,
    };
  });
  return format === "json"
    ? {
        filename: "audit-trail.json",
        contentType: "application/json",
        content: JSON.stringify(rows, null, 2),
      }
    : { filename: "audit-trail.csv", contentType: "text/csv", content: toCsv(TRAIL_COLUMNS, rows) };
}
