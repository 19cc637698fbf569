import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PrismaClient } from "@lastword/db";
import type { Logger } from "../logger";
import { isSafePathSegment } from "./partition-paths";
import { fencedEpoch } from "./storage-fence";

interface TopicDir {
  organizationId: string;
  topicId: string;
  dir: string;
}

/**
 * Removes the files of partitions whose Partition row no longer exists (topic deleted while no
 * worker hosted it, or while its owner was down). Files of existing partitions are never touched,
 * whoever owns them; a directory is only created after its row exists, so this cannot race a claim.
 * Returns the directories removed.
 */
export async function removeOrphanedPartitions(
  dataDir: string,
  prisma: PrismaClient,
  logger: Logger,
): Promise<string[]> {
  const { topics, rows } = await partitionsOnDisk(dataDir, prisma);
  const alive = new Set(rows.map((row) => `${row.organizationId}/${row.topicId}/${row.index}`));
  const aliveTopics = new Set(rows.map((row) => `${row.organizationId}/${row.topicId}`));
  const removed: string[] = [];
  for (const topic of topics) {
    const prefix = `${topic.organizationId}/${topic.topicId}`;
    const doomed = aliveTopics.has(prefix)
      ? (await subdirs(topic.dir)).filter((name) => /^\d+$/.test(name) && !alive.has(`${prefix}/${name}`))
      : [""];
    for (const name of doomed) {
      const dir = name === "" ? topic.dir : join(topic.dir, name);
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  if (removed.length) logger.info({ dirs: removed }, "removed files of deleted partitions");
  return removed;
}

/**
 * With an object store (the disk a cache): removes this worker's copies of partitions another
 * worker claimed since (a lease epoch above the one in the directory's fence), which the drop on
 * lease loss could not remove (the worker was down or cut off then), and forgets them in
 * PartitionCache. Partitions nobody claimed since are kept for this worker's next claim.
 */
export async function removeStaleCopies(
  dataDir: string,
  prisma: PrismaClient,
  workerId: string,
  logger: Logger,
): Promise<string[]> {
  const { rows } = await partitionsOnDisk(dataDir, prisma);
  const removed: string[] = [];
  for (const row of rows) {
    if (row.ownerWorkerId === workerId) continue;
    const dir = join(dataDir, row.organizationId, row.topicId, String(row.index));
    const fenced = await fencedEpoch(dir).catch(() => null);
    if (fenced === null || fenced >= row.leaseEpoch) continue;
    await rm(dir, { recursive: true, force: true });
    await prisma.partitionCache.deleteMany({ where: { partitionId: row.id, workerId } });
    removed.push(dir);
  }
  if (removed.length) logger.info({ dirs: removed }, "removed copies of partitions other workers took over");
  return removed;
}

interface PartitionRow {
  id: string;
  topicId: string;
  index: number;
  organizationId: string;
  ownerWorkerId: string | null;
  leaseEpoch: number;
}

/** The topic directories under `dataDir` and the Partition rows of those topics that still exist. */
async function partitionsOnDisk(
  dataDir: string,
  prisma: PrismaClient,
): Promise<{ topics: TopicDir[]; rows: PartitionRow[] }> {
  const topics = await listTopicDirs(dataDir);
  if (topics.length === 0) return { topics, rows: [] };
  const rows = await prisma.$queryRaw<PartitionRow[]>`
    SELECT p."id", p."topicId", p."index", t."organizationId", p."ownerWorkerId", p."leaseEpoch"
    FROM "Partition" p JOIN "Topic" t ON t."id" = p."topicId"
    WHERE p."topicId" = ANY(${topics.map((t) => t.topicId)}::text[])`;
  return { topics, rows };
}

async function listTopicDirs(dataDir: string): Promise<TopicDir[]> {
  const topics: TopicDir[] = [];
  for (const organizationId of await subdirs(dataDir)) {
    for (const topicId of await subdirs(join(dataDir, organizationId))) {
      topics.push({ organizationId, topicId, dir: join(dataDir, organizationId, topicId) });
    }
  }
  return topics;
}

async function subdirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && isSafePathSegment(e.name)).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
