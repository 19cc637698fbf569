import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenants } from "../bench/bench-topics";
import { LeaseRepository } from "../src/ownership/lease.repository";

// The load snapshot every worker reads each claim tick counts the Partition table once, per owner;
// each figure must still be what counting it on its own gives, for every kind of owner: this
// worker, a live peer, a live peer holding nothing, a worker whose heartbeat stopped, one whose
// session ended, and no owner at all.
const ME = "snapshot-me";
const TTL_MS = 10_000;

describe("LeaseRepository.loadSnapshot", () => {
  let db: TestDatabase;
  let ids: string[];

  beforeAll(async () => {
    db = await createTestDatabase("lastword_lease_snapshot");
    ids = await seedTenants(db.prisma, { tenants: 2, partitionsPerTenant: 6, configs: {}, tag: "snap" });
    // Live without a session lock (judged by heartbeat): me, a peer, an idle peer. Then a worker
    // whose heartbeat is older than the TTL, and one that registered a session lock nobody holds.
    await db.prisma.$executeRaw`
      INSERT INTO "Worker" ("id", "address", "heartbeatAt", "sessionLock") VALUES
        (${ME}, 'http://10.0.0.1:7100', now() AT TIME ZONE 'UTC', FALSE),
        ('snapshot-peer', 'http://10.0.0.2:7100', now() AT TIME ZONE 'UTC', FALSE),
        ('snapshot-idle', 'http://10.0.0.3:7100', now() AT TIME ZONE 'UTC', FALSE),
        ('snapshot-silent', 'http://10.0.0.4:7100', now() AT TIME ZONE 'UTC' - interval '1 minute', FALSE),
        ('snapshot-ended', 'http://10.0.0.5:7100', now() AT TIME ZONE 'UTC', TRUE)`;
    const own = async (owner: string | null, from: number, to: number, leaseSeconds: number | null) => {
      await db.prisma.$executeRaw`
        UPDATE "Partition" SET "ownerWorkerId" = ${owner}, "leaseEpoch" = 1,
          "leaseExpiresAt" = CASE WHEN ${leaseSeconds}::int IS NULL THEN NULL
                                  ELSE now() AT TIME ZONE 'UTC' + ${leaseSeconds}::int * interval '1 second' END
        WHERE "id" = ANY(${ids.slice(from, to)}::text[])`;
    };
    await own(ME, 0, 4, 10); // 4 held
    await own("snapshot-peer", 4, 7, 10); // 3 held…
    await own("snapshot-peer", 7, 8, -1); // …and 1 whose lease lapsed: claimable
    await own("snapshot-silent", 8, 9, 10); // a lease still valid: not claimable by lease
    await own("snapshot-ended", 9, 11, 10); // 2, claimable once sessions count
    await own(null, 11, 12, null); // never claimed: claimable
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Each figure counted by a statement of its own (the snapshot's meaning, spelled out). */
  async function countedAlone(sessions: boolean) {
    const endedOwner = sessions
      ? `OR ("ownerWorkerId" <> '${ME}' AND "ownerWorkerId" IN (SELECT "id" FROM "Worker" WHERE "sessionLock"))`
      : "";
    const live = `"stoppedAt" IS NULL AND "heartbeatAt" > now() AT TIME ZONE 'UTC' - interval '${TTL_MS} milliseconds'
      ${sessions ? `AND NOT "sessionLock"` : ""}`;
    const one = async (sql: string) => Number((await db.prisma.$queryRawUnsafe<{ n: bigint }[]>(sql))[0]!.n);
    return {
      totalPartitions: await one(`SELECT count(*) AS n FROM "Partition"`),
      liveWorkers: await one(`SELECT count(*) AS n FROM "Worker" WHERE ${live}`),
      ownedByMe: await one(`SELECT count(*) AS n FROM "Partition" WHERE "ownerWorkerId" = '${ME}'`),
      claimable: await one(
        `SELECT count(*) AS n FROM "Partition" WHERE "ownerWorkerId" IS NULL OR "leaseExpiresAt" IS NULL
           OR "leaseExpiresAt" <= now() AT TIME ZONE 'UTC' ${endedOwner}`,
      ),
      minOwnedByLiveWorker: await one(
        `SELECT COALESCE(min(c), 0) AS n FROM (SELECT count(p."id") AS c FROM "Worker" w
           LEFT JOIN "Partition" p ON p."ownerWorkerId" = w."id" WHERE ${live} GROUP BY w."id") AS loads`,
      ),
    };
  }

  /** The snapshot a claim tick reads (`sessions` as its worker has them), checked against `countedAlone`. */
  async function checkedSnapshot(sessions: boolean) {
    const snapshot = await new LeaseRepository(db.prisma, ME, TTL_MS).loadSnapshot(sessions);
    expect(snapshot).toEqual(await countedAlone(sessions));
    return snapshot;
  }

  it("counts every figure as a statement of its own would, with sessions and without", async () => {
    const figures = { totalPartitions: 12, ownedByMe: 4, minOwnedByLiveWorker: 0 };
    expect(await checkedSnapshot(true)).toEqual({ ...figures, liveWorkers: 3, claimable: 4 });
    // Without sessions the ended worker is judged by its heartbeat (fresh: live) and its leases (valid).
    expect(await checkedSnapshot(false)).toEqual({ ...figures, liveWorkers: 4, claimable: 2 });
  });

  it("takes the least-loaded live worker's count once every live worker holds something", async () => {
    await db.prisma.$executeRaw`
      UPDATE "Partition" SET "ownerWorkerId" = 'snapshot-idle', "leaseExpiresAt" = now() AT TIME ZONE 'UTC' + interval '10 seconds'
      WHERE "id" = ${ids[11]!}`;
    const snapshot = await checkedSnapshot(true);
    expect(snapshot.minOwnedByLiveWorker).toBe(1);
    expect(snapshot.claimable).toBe(3);
  });
});
