import { availableParallelism, cpus } from "node:os";
import { createTestDatabase } from "@lastword/db/testing";
import { measureStatementFloor, simulateFleet } from "./fleet-sim";

const WORKERS = 50;
/** BENCH_FLEET_SIZES=10000,30000,100000 (partitions); BENCH_FLEET_RATES=0,1 (produces/s per partition). */
const sizes = (process.env.BENCH_FLEET_SIZES ?? "10000,30000,100000").split(",").map(Number);
const rates = (process.env.BENCH_FLEET_RATES ?? "0,1").split(",").map(Number);
const WARMUP_MS = 4_000;
const MEASURE_MS = Number(process.env.BENCH_FLEET_MEASURE_MS ?? 10_000);
/** Connections of the statement floor (after each size's simulation; BENCH_FLEET_FLOOR=0: none). */
const FLOOR_CONNECTIONS = (process.env.BENCH_FLEET_FLOOR ?? "1,2")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const FLOOR_MS = 4_000;

/**
 * Past one machine, by simulation (fleet-sim.ts): 50 workers' leases, heartbeats, load snapshots
 * and manifest commits against this machine's Postgres, for growing partition counts, idle and
 * under produce load. Each size gets a database of its own.
 */
export async function fleetBenchmark(): Promise<void> {
  console.log(
    `\nfleet simulation: ${WORKERS} workers' Postgres statements at the worker's cadences ` +
      `(lease TTL 10 s, renewal every 3.3 s, claim tick 500 ms, commit window 10 ms); ` +
      `${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), shared with Postgres and other work`,
  );
  console.log(
    "  partitions | produces/s per partition | statements/s | commit p50 / p99 ms | window period p50 / p99 ms | " +
      "partition commits/s done / offered | renew p50 / p99 ms | snapshot p50 / p99 ms | simulator cores",
  );
  for (const partitions of sizes) {
    const db = await createTestDatabase("lastword_bench_fleet");
    const database = { databaseUrl: db.url, prisma: db.prisma };
    try {
      let seed = true;
      for (const rate of rates) {
        const r = await simulateFleet({
          ...database,
          partitions,
          workers: WORKERS,
          producesPerPartitionPerSecond: rate,
          warmupMs: WARMUP_MS,
          measureMs: MEASURE_MS,
          seed,
        });
        seed = false;
        const s = r.statements;
        const ms = (v: number) => (Number.isNaN(v) ? "–" : v.toFixed(1));
        console.log(
          `  ${partitions} | ${rate} | ${r.statementsPerSecond.toFixed(0)} | ${ms(s.commit.p50Ms)} / ${ms(s.commit.p99Ms)} | ` +
            `${ms(r.windowPeriodP50Ms)} / ${ms(r.windowPeriodP99Ms)} | ` +
            `${r.partitionCommitsPerSecond.toFixed(0)} / ${r.offeredPartitionCommitsPerSecond.toFixed(0)} | ` +
            `${ms(s.renew.p50Ms)} / ${ms(s.renew.p99Ms)} | ${ms(s.snapshot.p50Ms)} / ${ms(s.snapshot.p99Ms)} | ` +
            `${r.simulatorCores.toFixed(2)}` +
            (r.fenced > 0 ? ` | FENCED ${r.fenced}` : "") +
            (r.failures.size > 0
              ? ` | failed: ${[...r.failures].map(([k, n]) => `${n} × ${k}`).join(", ")}`
              : ""),
        );
      }
      // What this server does at most with the same statements, nothing else running (fleet-sim.ts).
      for (const connections of FLOOR_CONNECTIONS) {
        const floor = await measureStatementFloor({ ...database, connections, durationMs: FLOOR_MS });
        console.log(
          `  ${partitions} | floor, ${connections} connection(s) back to back, ${Math.ceil(partitions / WORKERS)} partitions a statement: ` +
            `partition commits/s ${floor.commitRowsPerSecond.toFixed(0)} | lease rows renewed/s ${floor.renewRowsPerSecond.toFixed(0)} | ` +
            `one snapshot alone ${floor.snapshotMs.toFixed(1)} ms`,
        );
      }
    } finally {
      await db.drop();
    }
  }
}
