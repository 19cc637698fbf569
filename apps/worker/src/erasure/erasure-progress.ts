import assert from "node:assert/strict";
import {
  appendAuditEvent,
  cleanerRunFigures,
  type ErasureRequest,
  type ErasureTombstone,
  type PrismaClient,
} from "@lastword/db";
import {
  ADVANCING_ERASURE_STATUSES,
  applyErasureEvent,
  ERASURE_STATUSES,
  type ErasureAuditEvent,
  type ErasureStatus,
  type ErasureStep,
  INITIAL_ERASURE_STATUS,
  nextProgressEvent,
  type PassRun,
  parseErasureRow,
  parseTombstoneRow,
  passesRunEvent,
  requestAuditEntry,
  toStored,
} from "@lastword/erasure";
import type { AuditActor } from "@lastword/erasure/audit-chain";

const SYSTEM: AuditActor = { type: "system", id: null };

type RequestWithTombstones = ErasureRequest & { tombstones: ErasureTombstone[] };

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
      status: { in: ADVANCING_ERASURE_STATUSES.map(toStored) },
      OR: [
        { tombstones: { some: { partitionId: { in: [...partitionIds] } } } },
        { status: toStored(INITIAL_ERASURE_STATUS), deadlineAt: { lt: new Date(nowMs) } },
      ],
    },
    include: { tombstones: true },
  });
  for (const request of open) await advanceErasureRequest(prisma, request, nowMs);
}

/**
 * Applies the events the request's tombstones call for (`nextProgressEvent`: all purged →
 * purged; all gone → tombstone-expired → closed; unpurged late in the window → at-risk; past the
 * deadline → failed) until none is due or another worker got there first.
 */
export async function advanceErasureRequest(
  prisma: PrismaClient,
  request: RequestWithTombstones,
  nowMs: number,
): Promise<void> {
  const now = new Date(nowMs);
  const tombstones = request.tombstones.map(parseTombstoneRow);
  let state = parseErasureRow(request);
  // Every step leaves the status it was applied in, so a request has fewer steps than statuses.
  for (let steps = 0; ; steps++) {
    assert(steps < ERASURE_STATUSES.length, `erasure request ${request.id} did not settle`);
    const event = nextProgressEvent(state, tombstones, now);
    if (event === null) return;
    const step = applyErasureEvent(state, event, now);
    assert(step.ok, `the lifecycle refused the event it proposed: ${step.ok ? "" : step.message}`);
    const before = event.type === "all-purged" ? await passesBefore(prisma, request.tombstones) : [];
    if (!(await store(prisma, request, state.status, step, before, now))) return;
    state = step.state;
  }
}

/** Stores one step once (concurrent workers race safely), with its audit event and any that lead to it. */
async function store(
  prisma: PrismaClient,
  request: ErasureRequest,
  from: ErasureStatus,
  step: ErasureStep,
  before: readonly ErasureAuditEvent[],
  now: Date,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const moved = await tx.erasureRequest.updateMany({
      where: { id: request.id, status: toStored(from) },
      data: {
        status: toStored(step.state.status),
        statusReason: step.state.statusReason,
        closedAt: step.state.closedAt,
      },
    });
    if (moved.count !== 1) return false;
    const system = { organizationId: request.organizationId, actor: SYSTEM };
    for (const event of [...before, step.audit])
      await appendAuditEvent(tx, requestAuditEntry(event, system, request.id, now));
    return true;
  });
}

/** The cleaner passes (CleanerRun rows) between each tombstone's write and its verified purge. */
async function passesBefore(
  prisma: PrismaClient,
  tombstones: readonly ErasureTombstone[],
): Promise<ErasureAuditEvent[]> {
  const runs = await prisma.cleanerRun.findMany({
    where: {
      OR: tombstones.map((t) => ({
        partitionId: t.partitionId,
        startedAt: { gte: t.writtenAt, ...(t.purgedAt ? { lte: t.purgedAt } : {}) },
      })),
    },
    orderBy: { startedAt: "asc" },
  });
  if (runs.length === 0) return [];
  const passes = runs.map((r): PassRun => {
    const t = tombstones.find((x) => x.partitionId === r.partitionId);
    return {
      topicId: t?.topicId ?? null,
      partition: t?.partitionIndex ?? null,
      ...cleanerRunFigures(r),
    };
  });
  return [passesRunEvent(passes)];
}
