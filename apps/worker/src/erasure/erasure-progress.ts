import {
  type AuditActor,
  appendAuditEvent,
  type ErasureRequest,
  type ErasureTombstone,
  type Prisma,
  type PrismaClient,
} from "@lastword/db";

const DAY_MS = 86_400_000;
const SYSTEM: AuditActor = { type: "system", id: null };
/** Still waiting for a purge: the states whose deadline can be at risk or missed. */
const AWAITING_PURGE = ["tombstoned", "at-risk"];
/** Requests the progress job still moves: everything short of closed or failed. */
export const OPEN_ERASURE_STATUSES = ["received", "tombstoned", "at-risk", "purged", "tombstone-expired"];

type RequestWithTombstones = ErasureRequest & { tombstones: ErasureTombstone[] };

/** A request nearing its deadline unpurged is at risk in the last tenth of its window (at most a day). */
export function atRiskWindowMs(receivedAt: Date, deadlineAt: Date): number {
  return Math.min(DAY_MS, 0.1 * (deadlineAt.getTime() - receivedAt.getTime()));
}

/**
 * Moves every open request that has a tombstone in one of `partitionIds` (the partitions this
 * worker hosts) one audited step at a time, from what the guard recorded on its tombstones and the
 * clock — nobody has to read the request. Requests whose tombstones were never written (the
 * control plane died between receiving and writing) fail once their deadline passes. Workers
 * race safely: each step is a conditional update.
 */
export async function advanceErasureRequests(
  prisma: PrismaClient,
  partitionIds: readonly string[],
  nowMs: number,
): Promise<void> {
  const open = await prisma.erasureRequest.findMany({
    where: {
      status: { in: OPEN_ERASURE_STATUSES },
      OR: [
        { tombstones: { some: { partitionId: { in: [...partitionIds] } } } },
        { status: "received", deadlineAt: { lt: new Date(nowMs) } },
      ],
    },
    include: { tombstones: true },
  });
  for (const request of open) await advanceErasureRequest(prisma, request, nowMs);
}

/**
 * Folds what the workers recorded on the tombstones into the request's state: all purged →
 * purged; all gone → tombstone-expired → closed; unpurged in the last part of the window →
 * at-risk; unpurged past the deadline → failed.
 */
export async function advanceErasureRequest(
  prisma: PrismaClient,
  request: RequestWithTombstones,
  now: number,
): Promise<void> {
  const { tombstones } = request;
  const allPurged = tombstones.length > 0 && tombstones.every((t) => t.status !== "tombstoned");
  if (AWAITING_PURGE.includes(request.status) && allPurged) {
    const passes = await passesRun(prisma, tombstones);
    await transition(
      prisma,
      now,
      request,
      "purged",
      "erasure.purged",
      {
        evidence: tombstones.map((t) => evidenceSummary(t, "purge")),
        beforeDeadlineMs:
          request.deadlineAt.getTime() - Math.max(...tombstones.map((t) => t.purgedAt?.getTime() ?? now)),
      },
      { statusReason: null },
      passes.length > 0 ? [{ action: "erasure.pass.run", data: { passes } }] : [],
    );
  }
  if (request.status === "purged" && tombstones.every((t) => t.status === "tombstone-expired")) {
    await transition(prisma, now, request, "tombstone-expired", "erasure.tombstone.removed", {
      evidence: tombstones.map((t) => evidenceSummary(t, "expiry")),
    });
  }
  if (request.status === "tombstone-expired") {
    await transition(prisma, now, request, "closed", "erasure.closed", {}, { closedAt: new Date(now) });
  }
  if (request.status === "received" && now > request.deadlineAt.getTime()) {
    const reason = "The tombstones were never written (the request was received but not carried out).";
    await transition(prisma, now, request, "failed", "erasure.failed", { reason }, { statusReason: reason });
  }
  if (!AWAITING_PURGE.includes(request.status)) return;
  if (now > request.deadlineAt.getTime()) {
    const reason = `The deadline ${request.deadlineAt.toISOString()} passed before every partition was verified purged.`;
    await transition(prisma, now, request, "failed", "erasure.failed", { reason }, { statusReason: reason });
  } else if (
    request.status === "tombstoned" &&
    request.deadlineAt.getTime() - now < atRiskWindowMs(request.receivedAt, request.deadlineAt)
  ) {
    const pending = tombstones.filter((t) => t.status === "tombstoned").length;
    const reason = `${pending} partition(s) not yet verified purged with less than ${Math.round(
      atRiskWindowMs(request.receivedAt, request.deadlineAt) / 1000,
    )} s to the deadline.`;
    await transition(
      prisma,
      now,
      request,
      "at-risk",
      "erasure.at-risk",
      { reason },
      { statusReason: reason },
    );
  }
}

/** Moves a request from one status to another once (concurrent workers race safely) with its audit event. */
async function transition(
  prisma: PrismaClient,
  nowMs: number,
  request: ErasureRequest,
  to: string,
  action: string,
  data: Record<string, unknown>,
  extra: Prisma.ErasureRequestUpdateManyMutationInput = {},
  before: { action: string; data: Record<string, unknown> }[] = [],
): Promise<boolean> {
  const now = new Date(nowMs);
  const target = { type: "erasureRequest", id: request.id };
  return prisma.$transaction(async (tx) => {
    const moved = await tx.erasureRequest.updateMany({
      where: { id: request.id, status: request.status },
      data: { status: to, ...extra },
    });
    if (moved.count !== 1) return false;
    for (const event of before)
      await appendAuditEvent(tx, {
        organizationId: request.organizationId,
        actor: SYSTEM,
        action: event.action,
        target,
        data: event.data,
        now,
      });
    await appendAuditEvent(tx, {
      organizationId: request.organizationId,
      actor: SYSTEM,
      action,
      target,
      data: { from: request.status, to, ...data },
      now,
    });
    Object.assign(request, { status: to, ...extra });
    return true;
  });
}

function evidenceSummary(t: ErasureTombstone, which: "purge" | "expiry") {
  const evidence = (which === "purge" ? t.purgeEvidence : t.expiryEvidence) as {
    result?: string;
    bytesScanned?: number;
    segments?: { baseOffset: number; sizeBytes: number; sha256: string }[];
  } | null;
  return {
    topicId: t.topicId,
    partition: t.partitionIndex,
    offset: Number(t.offset),
    subjectKey: t.subjectKey,
    passRequestedAt: t.passRequestedAt?.toISOString() ?? null,
    verifiedAt: (which === "purge" ? t.purgedAt : t.expiredAt)?.toISOString() ?? null,
    result: evidence?.result ?? null,
    bytesScanned: evidence?.bytesScanned ?? 0,
    segments: evidence?.segments ?? [],
  };
}

/** The cleaner passes (CleanerRun rows) between each tombstone's write and its verified purge. */
async function passesRun(prisma: PrismaClient, tombstones: readonly ErasureTombstone[]) {
  const runs = await prisma.cleanerRun.findMany({
    where: {
      OR: tombstones.map((t) => ({
        partitionId: t.partitionId,
        startedAt: { gte: t.writtenAt, ...(t.purgedAt ? { lte: t.purgedAt } : {}) },
      })),
    },
    orderBy: { startedAt: "asc" },
  });
  return runs.map((r) => {
    const t = tombstones.find((x) => x.partitionId === r.partitionId);
    return {
      topicId: t?.topicId ?? null,
      partition: t?.partitionIndex ?? null,
      status: r.status,
      trigger: r.trigger,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      bytesRead: Number(r.bytesRead),
      bytesWritten: Number(r.bytesWritten),
      recordsRemoved: r.recordsRemoved,
      tombstonesRemoved: r.tombstonesRemoved,
    };
  });
}
