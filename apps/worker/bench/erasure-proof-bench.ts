import { mkdir } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { FsObjectStore } from "@lastword/object-store";
import { waitFor } from "./bench-topics";
import { benchRestTenant, startBenchWorker, withBenchWorld } from "./bench-world";

// Filed → proven on every tier, on `npm start`'s setup: one worker with the filesystem object store
// and every default timing (the 5 s scheduler tick, the 10 ms commit window, tiering every second,
// shared commit objects consolidated after 30 s, superseded objects' 5-minute grace), a topic with
// the configs (1 partition, max.compaction.lag.ms 2 s, delete.retention.ms 3 s) and a
// handful of records, plus a 3-partition topic written in the same moments (so the erased key's
// old values share commit objects with other partitions, the one wait an erasure cannot skip).
// BENCH_ERASURES requests, one key each, filed a second apart; each is timed from its receivedAt
// to its purge proof (the request's `purged`), then p50 / p99 / max.

const SECRET = "bench-erasure-proof-secret";
const REQUESTS = Number(process.env.BENCH_ERASURES ?? 20);
const TICK_MS = 5_000;

export async function erasureProofBenchmark(options: { dataDir: string }): Promise<void> {
  await withBenchWorld({ name: "erasure_proof", secret: SECRET, ownerWaitMs: 60_000 }, async (db, client) => {
    const rest = await benchRestTenant({ db, client, tag: "erasure-proof", scopes: ["admin"] });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await rest.call(method, path, body === undefined ? undefined : JSON.stringify(body));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    await mkdir(options.dataDir, { recursive: true });
    const worker = await startBenchWorker(
      db,
      { dataDir: join(options.dataDir, "data"), secret: SECRET },
      {
        objectStore: new FsObjectStore(join(options.dataDir, "objects")),
        scheduling: {
          redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
          redisPrefix: rest.redisPrefix,
          tickMs: TICK_MS,
        },
      },
    );
    try {
      for (const [name, partitions, configs] of [
        [
          "customers",
          1,
          { "cleanup.policy": "compact", "max.compaction.lag.ms": 2_000, "delete.retention.ms": 3_000 },
        ],
        ["orders", 3, { "cleanup.policy": "compact" }],
      ] as const) {
        const created = await call("POST", "/topics", { name, partitions, configs });
        if (created.status !== 201)
          throw new Error(`bench topic: ${created.status} ${JSON.stringify(created.body)}`);
      }
      await waitFor("every partition claimed", 60_000, async () => worker.ownedPartitions().length === 4);
      const record = (key: string, value: string) => ({
        key: { type: "string", data: key },
        value: { type: "string", data: value },
      });
      for (let n = 0; n < REQUESTS; n++) {
        // Each key's old values, with other partitions' records in the same commit windows.
        await Promise.all([
          call("POST", "/topics/customers/records", {
            records: [record(`user-${n}`, `address ${n}`), record(`user-${n}`, `new address ${n}`)],
          }),
          call("POST", "/topics/orders/records", { records: [record(`order-${n}`, `order of user-${n}`)] }),
        ]);
      }
      const filed: string[] = [];
      for (let n = 0; n < REQUESTS; n++) {
        const res = await call("POST", "/erasure-requests", {
          keys: [{ type: "string", data: `user-${n}` }],
          topics: ["customers"],
          deadlineAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        });
        if (res.status !== 201) throw new Error(`erasure request: ${res.status} ${JSON.stringify(res.body)}`);
        filed.push(res.body.id as string);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const times: number[] = [];
      await waitFor("every request purged", 10 * 60_000, async () => {
        const rows = await db.prisma.erasureRequest.findMany({
          where: { id: { in: filed } },
          include: { tombstones: true },
        });
        times.length = 0;
        for (const row of rows) {
          if (row.tombstones.length === 0 || row.tombstones.some((t) => t.purgedAt === null)) return false;
          const provenAt = Math.max(...row.tombstones.map((t) => t.purgedAt!.getTime()));
          times.push(provenAt - row.receivedAt.getTime());
        }
        return times.length === filed.length;
      });
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
      const s = (ms: number) => (ms / 1000).toFixed(1);
      console.log(
        `\nerasure proof (object store on, default timings, tick ${TICK_MS / 1000} s): ${REQUESTS} requests, ` +
          `load ${loadavg()
            .map((l) => l.toFixed(2))
            .join(" ")}`,
      );
      console.log("  filed → proven | p50 s | p99 s | max s");
      console.log(`  customers (1 partition) | ${s(at(0.5))} | ${s(at(0.99))} | ${s(times.at(-1)!)}`);
    } finally {
      await worker.stop();
      await rest.close();
    }
  });
}
