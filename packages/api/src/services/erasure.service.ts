import type { DataPlane } from "@lastword/dataplane";
import type { ErasureRequest, ErasureTombstone, Prisma, PrismaClient, Topic } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import {
  applyErasureEvent,
  type ErasureEvent,
  type ErasureRefusal,
  type ErasureState,
  type ErasureStatus,
  type ErasureStep,
  GONE_TOMBSTONE_STATUS,
  isBehindTombstone,
  type Preflight,
  parseErasureRow,
  parseTombstoneRow,
  preflightsSchema,
  receiveErasureRequest,
  receiveRefusal,
  requestAuditEntry,
  storedErasureStatus,
  storedTombstoneStatus,
  type TombstoneFacts,
  tombstoneEvidence,
  toStored,
  WRITTEN_TOMBSTONE_STATUS,
  type WrittenTombstone,
} from "@lastword/erasure";
import type { AuditActor } from "@lastword/erasure/audit-chain";
import { parseTopicConfig } from "@lastword/topic-config";
import { z } from "zod";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { bytesToEnvelope, type Envelope, envelopeToBytes } from "../records/envelope";
import { assertKeySize } from "../records/key-limit";
import type { Clock } from "./api-deps";
import { auditActorNames } from "./audit-actors";
import { tombstonePartitions, topicsInScope } from "./erasure-scope";
import { erasureVerdicts, keyName } from "./erasure-verdicts";
import { tenantQuota } from "./rate-limit.service";
import { storedConfigs } from "./topic-config";
import { topicPreflights } from "./topic-deadline";

export interface ErasureDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

const DAY_MS = 86_400_000;
/** An audit event's payload is a JSON object whatever its action (older events predate some fields). */
const auditDataSchema = z.record(z.string(), z.unknown());
const SYSTEM: AuditActor = { type: "system", id: null };

export interface CreateErasureInput {
  keys: Envelope[];
  topics?: string[] | undefined;
  allCompacted?: boolean | undefined;
  receivedAt?: string | undefined;
  deadlineAt?: string | undefined;
  requester?: string | undefined;
  notes?: string | undefined;
}

type RequestWithTombstones = ErasureRequest & { tombstones: ErasureTombstone[] };

function keyBytes(envelope: Envelope): Buffer {
  const bytes = envelopeToBytes(envelope);
  if (bytes === null || bytes.length === 0)
    throw new AppError("INVALID_INPUT", "A subject key must not be empty.");
  assertKeySize(bytes, "A subject key");
  return bytes;
}

/**
 * Receives a request, then writes the tombstones: per topic in scope, one batch per partition with
 * every subject key that partition must forget, and records each tombstone's offset. Each step is
 * an audit event in the tenant's hash chain.
 */
export async function createErasureRequest(deps: ErasureDeps, identity: Identity, input: CreateErasureInput) {
  const { prisma } = deps;
  const now = new Date(deps.clock.now());
  const keys = input.keys.map(keyBytes);
  const receivedAt = input.receivedAt ? new Date(input.receivedAt) : now;
  const quota = await tenantQuota(deps, identity.tenantId);
  const deadlineAt = input.deadlineAt
    ? new Date(input.deadlineAt)
    : new Date(receivedAt.getTime() + quota.erasureDeadlineDays * DAY_MS);
  // Refused before the topics are looked up, so a bad deadline is the error reported first.
  const early = receiveRefusal(deadlineAt, now);
  if (early) throw refused(early);
  const topics = await topicsInScope(prisma, identity.tenantId, input);
  const deadlineMs = deadlineAt.getTime() - now.getTime();
  const preflights = await topicPreflights(prisma, topics, deadlineMs);
  const preflight: Record<string, Preflight> = Object.fromEntries(
    topics.map((topic) => [topic.name, preflights.get(topic.id)!]),
  );
  const subjectKeys = keys.map((k) => k.toString("base64"));
  // Unless the form names the data subject's requester, the caller: by name, not by id.
  const requestedBy =
    input.requester ??
    (await auditActorNames(prisma, identity.tenantId, [callerRef(identity)]))(callerRef(identity)).name;
  const received = receiveErasureRequest(
    {
      receivedAt,
      deadlineAt,
      subjectKeys,
      topics: topics.map((t) => t.name),
      allCompacted: input.allCompacted ?? false,
      requester: requestedBy,
      topicsMissingDeadline: Object.entries(preflight)
        .filter(([, p]) => !p.meetsDeadline)
        .map(([name]) => name),
    },
    now,
  );
  if (!received.ok) throw refused(received);

  const request = await prisma.$transaction(async (tx) => {
    const row = await tx.erasureRequest.create({
      data: {
        organizationId: identity.tenantId,
        subjectKey: keys[0] as Uint8Array<ArrayBuffer>,
        subjectKeys,
        topicIds: topics.map((t) => t.id),
        allCompacted: input.allCompacted ?? false,
        status: toStored(received.state.status),
        receivedAt,
        deadlineAt,
        requestedBy,
        notes: input.notes ?? null,
        preflight,
      },
    });
    await appendAuditEvent(tx, requestAuditEntry(received.audit, by(identity), row.id, now));
    return row;
  });
  const tombstoned = await writeTombstones(deps, request, received.state, topics, keys);
  if (tombstoned) await flagAtFiling(deps, request, tombstoned, preflight);
  return getErasureRequest(deps, identity, request.id);
}

/**
 * A request the preflight says a topic cannot meet is at risk from the moment it is filed, with
 * the reason and the config change that fixes it (the console offers it as one click).
 */
async function flagAtFiling(
  deps: ErasureDeps,
  request: ErasureRequest,
  state: ErasureState,
  preflight: Record<string, Preflight>,
) {
  const missed = Object.entries(preflight).filter(([, p]) => !p.meetsDeadline);
  if (missed.length === 0) return;
  const reason = `Filed at risk: ${missed
    .map(([topic, p]) => `${topic} — ${p.explanation}${p.fix ? ` Fix: ${fixText(p.fix)}.` : ""}`)
    .join(" ")}`;
  const now = new Date(deps.clock.now());
  const step = applyErasureEvent(state, { type: "filed-at-risk", reason }, now);
  if (!step.ok) return;
  await deps.prisma.$transaction(async (tx) => {
    const moved = await tx.erasureRequest.updateMany({
      where: { id: request.id, status: toStored(state.status) },
      data: storedState(step),
    });
    if (moved.count !== 1) return;
    const system = { organizationId: request.organizationId, actor: SYSTEM };
    await appendAuditEvent(tx, requestAuditEntry(step.audit, system, request.id, now));
  });
}

function fixText(fix: Record<string, string>): string {
  return Object.entries(fix)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
}

/**
 * Partitions whose key index (on their owner) holds a retained record of the key — a live value, or
 * a tombstone that older values may still sit beneath: a producer may have chosen a partition
 * itself, so the murmur2 one is not enough. One index lookup per partition, no scan.
 */
async function partitionsHoldingKey(
  dataPlane: DataPlane,
  partitions: readonly { id: string; index: number }[],
  key: Buffer,
): Promise<number[]> {
  const found = await Promise.all(
    partitions.map(async (p) => {
      const found = await dataPlane.lookupKey({ partitionId: p.id, key });
      return found.record || found.tombstoneOffset !== undefined ? p.index : null;
    }),
  );
  return found.filter((index): index is number => index !== null);
}

/** Writes the tombstones; the request's state after them, or null when writing them failed. */
async function writeTombstones(
  deps: ErasureDeps,
  request: ErasureRequest,
  state: ErasureState,
  topics: Topic[],
  keys: Buffer[],
): Promise<ErasureState | null> {
  const { prisma } = deps;
  const rows: Prisma.ErasureTombstoneCreateManyInput[] = [];
  try {
    for (const topic of topics) {
      const partitions = await prisma.partition.findMany({
        where: { topicId: topic.id },
        orderBy: { index: "asc" },
      });
      const byPartition = new Map<number, Buffer[]>();
      for (const key of keys) {
        const holders = await partitionsHoldingKey(deps.dataPlane, partitions, key);
        for (const index of tombstonePartitions(key, topic.partitionCount, holders)) {
          byPartition.set(index, [...(byPartition.get(index) ?? []), key]);
        }
      }
      for (const [index, partitionKeys] of byPartition) {
        const partition = partitions.find((p) => p.index === index);
        if (!partition)
          throw new AppError("PARTITION_NOT_FOUND", `Topic ${topic.name} has no partition ${index}.`);
        const written = await deps.dataPlane.produce({
          partitionId: partition.id,
          records: partitionKeys.map((key) => ({ key, value: null })),
        });
        const writtenAt = new Date(deps.clock.now());
        partitionKeys.forEach((key, i) => {
          rows.push({
            requestId: request.id,
            organizationId: request.organizationId,
            topicId: topic.id,
            partitionId: partition.id,
            partitionIndex: index,
            subjectKey: key.toString("base64"),
            offset: BigInt(written.offsets[i] ?? written.baseOffset + i),
            writtenAt,
            deadlineAt: request.deadlineAt,
          });
        });
      }
    }
  } catch (error) {
    const reason = `Writing tombstones failed: ${error instanceof Error ? error.message : String(error)}`;
    await saveTombstones(deps, request, state, rows, {
      type: "tombstones-failed",
      reason,
      tombstones: written(rows),
    });
    return null;
  }
  return saveTombstones(deps, request, state, rows, {
    type: "tombstones-written",
    tombstones: written(rows),
  });
}

function written(rows: readonly Prisma.ErasureTombstoneCreateManyInput[]): WrittenTombstone[] {
  return rows.map((r) => ({
    topicId: r.topicId,
    partition: r.partitionIndex,
    offset: Number(r.offset),
    subjectKey: r.subjectKey,
    writtenAt: (r.writtenAt as Date).toISOString(),
  }));
}

async function saveTombstones(
  deps: ErasureDeps,
  request: ErasureRequest,
  state: ErasureState,
  rows: Prisma.ErasureTombstoneCreateManyInput[],
  event: ErasureEvent,
): Promise<ErasureState> {
  const now = new Date(deps.clock.now());
  const step = applyErasureEvent(state, event, now);
  if (!step.ok) throw refused(step);
  await deps.prisma.$transaction(async (tx) => {
    if (rows.length > 0) await tx.erasureTombstone.createMany({ data: rows });
    await tx.erasureRequest.update({ where: { id: request.id }, data: storedState(step) });
    const system = { organizationId: request.organizationId, actor: SYSTEM };
    await appendAuditEvent(tx, requestAuditEntry(step.audit, system, request.id, now));
  });
  return step.state;
}

/** The columns a step changes, in the client's spelling. */
function storedState({ state }: ErasureStep) {
  return {
    status: toStored(state.status),
    statusReason: state.statusReason,
    deadlineAt: state.deadlineAt,
    closedAt: state.closedAt,
    extensions: [...state.extensions],
  };
}

/** The caller as an audit event records its actor. */
function callerRef(identity: Identity) {
  return { actorType: identity.actor.type, actorId: identity.actor.id };
}

/** Who an event of this caller's is by, in the audit trail. */
function by(identity: Identity) {
  return { organizationId: identity.tenantId, actor: identity.actor };
}

/** A transition the lifecycle refuses, as the error people see: a wrong state is policy, the rest bad input. */
function refused(refusal: ErasureRefusal): AppError {
  const code = refusal.code === "NOT_ALLOWED_FROM_STATUS" ? "POLICY_VIOLATION" : "INVALID_INPUT";
  return new AppError(code, refusal.message);
}

async function loadRequest(
  prisma: PrismaClient,
  tenantId: string,
  id: string,
): Promise<RequestWithTombstones> {
  const request = await prisma.erasureRequest.findFirst({
    where: { id, organizationId: tenantId },
    include: { tombstones: { orderBy: [{ topicId: "asc" }, { partitionIndex: "asc" }, { offset: "asc" }] } },
  });
  if (!request) throw new AppError("NOT_FOUND", `No erasure request ${id} in this tenant.`);
  return request;
}

export async function getErasureRequest(deps: ErasureDeps, identity: Identity, id: string) {
  // A read never moves the state: the workers advance every open request on their tick
  // (apps/worker erasure-progress.ts), so the state is current whether or not anyone looks.
  const request = await loadRequest(deps.prisma, identity.tenantId, id);
  const topics = await deps.prisma.topic.findMany({ where: { id: { in: request.topicIds } } });
  const tombstones = request.tombstones.map(parseTombstoneRow);
  const events = await deps.prisma.auditEvent.findMany({
    where: { organizationId: identity.tenantId, targetType: "erasureRequest", targetId: id },
    orderBy: { seq: "asc" },
  });
  const nameOf = await auditActorNames(deps.prisma, identity.tenantId, events);
  const topicName = (topicId: string) => topics.find((topic) => topic.id === topicId)?.name ?? null;
  return {
    ...summarize(request, topics, deps.clock.now()),
    verdicts: erasureVerdicts(
      tombstones.map((t) => ({ ...t, topic: topicName(t.topicId), subjectKeyBase64: t.subjectKey })),
    ),
    tombstones: tombstones.map((t) => ({
      topic: topicName(t.topicId),
      partition: t.partition,
      offset: t.offset,
      subjectKey: bytesToEnvelope(Buffer.from(t.subjectKey, "base64"), "auto") as Envelope,
      subjectKeyBase64: t.subjectKey,
      subjectKeyName: keyName(t.subjectKey),
      status: t.status,
      writtenAt: t.writtenAt.toISOString(),
      passRequestedAt: t.passRequestedAt?.toISOString() ?? null,
      purgedAt: t.purgedAt?.toISOString() ?? null,
      expiredAt: t.expiredAt?.toISOString() ?? null,
      purgeEvidence: t.purgeEvidence,
      expiryEvidence: t.expiryEvidence,
      waitingFor: t.status === GONE_TOMBSTONE_STATUS ? null : t.waitingFor,
    })),
    laggingGroups: await laggingGroups(deps, identity.tenantId, request.tombstones, topics),
    missedGroups: missedGroups(tombstones, topics),
    timeline: events.map((e) => ({
      seq: e.seq,
      action: e.action,
      at: e.createdAt.toISOString(),
      actorType: e.actorType,
      actor: nameOf(e),
      data: auditDataSchema.parse(e.data),
    })),
  };
}

function summarize(request: ErasureRequest, topics: Topic[], now: number) {
  const state = parseErasureRow(request);
  return {
    id: request.id,
    status: state.status,
    statusReason: state.statusReason,
    subjectKeys: request.subjectKeys.map(
      (k) => bytesToEnvelope(Buffer.from(k, "base64"), "auto") as Envelope,
    ),
    scope: {
      allCompacted: request.allCompacted,
      topics: request.topicIds.map((id) => topics.find((t) => t.id === id)?.name ?? id),
    },
    receivedAt: request.receivedAt.toISOString(),
    deadlineAt: request.deadlineAt.toISOString(),
    msToDeadline: request.deadlineAt.getTime() - now,
    requester: request.requestedBy,
    notes: request.notes,
    extensions: [...state.extensions],
    preflight: preflightsSchema.parse(request.preflight ?? {}),
    closedAt: request.closedAt?.toISOString() ?? null,
  };
}

export async function listErasureRequests(
  deps: ErasureDeps,
  identity: Identity,
  input: { status?: ErasureStatus | undefined; limit: number },
) {
  const rows = await deps.prisma.erasureRequest.findMany({
    where: { organizationId: identity.tenantId, ...(input.status ? { status: toStored(input.status) } : {}) },
    orderBy: { deadlineAt: "asc" },
    take: input.limit,
  });
  const topics = await deps.prisma.topic.findMany({ where: { organizationId: identity.tenantId } });
  const counts = await deps.prisma.erasureRequest.groupBy({
    by: ["status"],
    where: { organizationId: identity.tenantId },
    _count: { _all: true },
  });
  return {
    requests: rows.map((r) => summarize(r, topics, deps.clock.now())),
    byStatus: Object.fromEntries(
      counts.map((c) => [storedErasureStatus(c.status), c._count._all]),
    ) as Partial<Record<ErasureStatus, number>>,
  };
}

/** How often an extension re-reads a request a worker moved under it before giving up. */
const EXTEND_ATTEMPTS = 3;

/** A later deadline with its reason (recorded in the request and the audit trail). */
export async function extendErasureDeadline(
  deps: ErasureDeps,
  identity: Identity,
  input: { id: string; deadlineAt: string; reason: string },
) {
  const to = new Date(input.deadlineAt);
  for (let attempt = 0; attempt < EXTEND_ATTEMPTS; attempt++) {
    const request = await loadRequest(deps.prisma, identity.tenantId, input.id);
    const now = new Date(deps.clock.now());
    const event = {
      type: "deadline-extended",
      deadlineAt: to,
      reason: input.reason,
      tombstonesWritten: request.tombstones.length > 0,
    } as const;
    const step = applyErasureEvent(parseErasureRow(request), event, now);
    if (!step.ok) throw refused(step);
    const applied = await deps.prisma.$transaction(async (tx) => {
      // Conditional on the status read: a worker that moved the request meanwhile must not be undone.
      const moved = await tx.erasureRequest.updateMany({
        where: { id: request.id, status: request.status },
        data: storedState(step),
      });
      if (moved.count !== 1) return false;
      await tx.erasureTombstone.updateMany({ where: { requestId: request.id }, data: { deadlineAt: to } });
      await appendAuditEvent(tx, requestAuditEntry(step.audit, by(identity), request.id, now));
      return true;
    });
    if (applied) return getErasureRequest(deps, identity, request.id);
  }
  throw new AppError(
    "POLICY_VIOLATION",
    "The request kept changing while its deadline was being extended; try again.",
  );
}

/**
 * A failed request looked at again: when every partition has been proven purged since (the
 * workers keep purging and proving a failed request's tombstones), it moves to purged, its event
 * saying how late; otherwise passes are requested on the partitions still unproven, and the answer
 * says how many. Either way the caller's act is in the audit trail.
 */
export async function reverifyErasureRequest(deps: ErasureDeps, identity: Identity, input: { id: string }) {
  const request = await loadRequest(deps.prisma, identity.tenantId, input.id);
  const state = parseErasureRow(request);
  if (state.status !== "failed") {
    throw new AppError(
      "POLICY_VIOLATION",
      `A ${state.status} request is verified by the workers on every tick; only a failed one is re-verified by hand.`,
    );
  }
  const tombstones = request.tombstones.map(parseTombstoneRow);
  if (tombstones.length === 0) {
    throw new AppError(
      "POLICY_VIOLATION",
      "This request's tombstones were never written: there is nothing to verify. File a new request.",
    );
  }
  const unpurged = request.tombstones.filter(
    (t) => storedTombstoneStatus(t.status) === WRITTEN_TOMBSTONE_STATUS,
  );
  const now = new Date(deps.clock.now());
  if (unpurged.length === 0) {
    const purgedAt = new Date(Math.max(...tombstones.map((t) => t.purgedAt?.getTime() ?? now.getTime())));
    const event = {
      type: "all-purged",
      evidence: tombstones.map((t) => tombstoneEvidence(t, "purge")),
      purgedAt,
    } as const;
    const step = applyErasureEvent(state, event, now);
    if (!step.ok) throw refused(step);
    await deps.prisma.$transaction(async (tx) => {
      const moved = await tx.erasureRequest.updateMany({
        where: { id: request.id, status: request.status },
        data: storedState(step),
      });
      if (moved.count !== 1)
        throw new AppError("POLICY_VIOLATION", "The request changed meanwhile; try again.");
      await appendAuditEvent(tx, requestAuditEntry(step.audit, by(identity), request.id, now));
    });
    return {
      verified: true,
      unpurgedPartitions: 0,
      request: await getErasureRequest(deps, identity, request.id),
    };
  }
  const partitions = [...new Set(unpurged.map((t) => t.partitionId))];
  await Promise.all(partitions.map((partitionId) => deps.dataPlane.requestClean({ partitionId })));
  await deps.prisma.$transaction((tx) =>
    appendAuditEvent(tx, {
      ...by(identity),
      action: "erasure.reverify.requested",
      target: { type: "erasureRequest", id: request.id },
      data: { unpurgedPartitions: partitions.length, passesRequested: partitions.length },
      now,
    }),
  );
  return {
    verified: false,
    unpurgedPartitions: partitions.length,
    request: await getErasureRequest(deps, identity, request.id),
  };
}

/**
 * The groups each gone tombstone's expiry proof recorded as behind it: they never read the delete
 * and may still hold the erased value, so they stay on the request after it closes.
 */
function missedGroups(tombstones: readonly TombstoneFacts[], topics: readonly Topic[]) {
  return tombstones.flatMap((t) =>
    (t.missedBy ?? []).map((m) => ({
      group: m.group,
      topic: topics.find((topic) => topic.id === t.topicId)?.name ?? t.topicId,
      partition: t.partition,
      tombstoneOffset: t.offset,
      committedOffset: m.committedOffset,
      expiredAt: t.expiredAt?.toISOString() ?? null,
    })),
  );
}

/**
 * Consumer groups whose committed offset (the next offset they read) is not past a pending
 * tombstone (one without a committed position there is not: see isBehindTombstone). Once the tombstone's delete horizon (first cleaning pass + delete.retention.ms) is
 * near they are flagged: a group that reads after the horizon never sees the delete and keeps the key.
 */
export async function laggingGroups(
  deps: ErasureDeps,
  tenantId: string,
  tombstones: readonly ErasureTombstone[],
  topics: readonly Topic[],
) {
  const pending = tombstones.filter((t) => storedTombstoneStatus(t.status) !== GONE_TOMBSTONE_STATUS);
  if (pending.length === 0) return [];
  const offsets = await deps.prisma.consumerGroupOffset.findMany({
    where: {
      topicId: { in: [...new Set(pending.map((t) => t.topicId))] },
      group: { organizationId: tenantId },
    },
    include: { group: { select: { name: true } } },
  });
  const now = deps.clock.now();
  const flagged = [];
  for (const t of pending) {
    const topic = topics.find((candidate) => candidate.id === t.topicId);
    if (!topic) continue;
    const retention = parseTopicConfig(storedConfigs(topic.configs)).deleteRetentionMs;
    const horizonAt = t.purgedAt ? t.purgedAt.getTime() + retention : null;
    for (const o of offsets) {
      if (o.topicId !== t.topicId || o.partitionIndex !== t.partitionIndex) continue;
      if (!isBehindTombstone(o.offset, t.offset)) continue;
      flagged.push({
        group: o.group.name,
        topic: topic.name,
        partition: t.partitionIndex,
        committedOffset: Number(o.offset),
        tombstoneOffset: Number(t.offset),
        horizonAt: horizonAt === null ? null : new Date(horizonAt).toISOString(),
        horizonNear: horizonAt !== null && horizonAt - now <= Math.max(retention / 2, 60_000),
      });
    }
  }
  return flagged;
}

/** Per compacted topic: can its configs meet the tenant's deadline, and who lags behind its tombstones. */
export async function erasureTopicsReport(deps: ErasureDeps, identity: Identity) {
  const quota = await tenantQuota(deps, identity.tenantId);
  const deadlineMs = quota.erasureDeadlineDays * DAY_MS;
  const topics = await topicsInScope(deps.prisma, identity.tenantId, { allCompacted: true });
  const tombstones = await deps.prisma.erasureTombstone.findMany({
    where: { organizationId: identity.tenantId, status: { not: toStored(GONE_TOMBSTONE_STATUS) } },
  });
  const preflights = await topicPreflights(deps.prisma, topics, deadlineMs);
  const report = [];
  for (const topic of topics) {
    report.push({
      topic: topic.name,
      preflight: preflights.get(topic.id)!,
      pendingTombstones: tombstones.filter((t) => t.topicId === topic.id).length,
      laggingGroups: await laggingGroups(
        deps,
        identity.tenantId,
        tombstones.filter((t) => t.topicId === topic.id),
        [topic],
      ),
    });
  }
  return { deadlineDays: quota.erasureDeadlineDays, topics: report };
}

/** The preflight a new request would get, before it is made. */
export async function previewErasure(
  deps: ErasureDeps,
  identity: Identity,
  input: {
    topics?: string[] | undefined;
    allCompacted?: boolean | undefined;
    deadlineAt?: string | undefined;
  },
) {
  const now = deps.clock.now();
  const quota = await tenantQuota(deps, identity.tenantId);
  const deadlineAt = input.deadlineAt
    ? new Date(input.deadlineAt).getTime()
    : now + quota.erasureDeadlineDays * DAY_MS;
  const topics = await topicsInScope(deps.prisma, identity.tenantId, input);
  const preflights = await topicPreflights(deps.prisma, topics, deadlineAt - now);
  const report = topics.map((topic) => ({ topic: topic.name, preflight: preflights.get(topic.id)! }));
  return { deadlineAt: new Date(deadlineAt).toISOString(), topics: report };
}
