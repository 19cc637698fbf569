// Worker benchmarks (`npm run bench`): produce through the data plane vs in-process append, and the
// cleaner scheduler over 2,000 partitions of 200 tenants. Needs Postgres and Redis (like the tests).
// Arguments pick parts: `npm run bench -w @lastword/worker -- durable` (default: produce durable scheduler).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { durableBenchmark } from "./durable-bench";
import { produceBenchmark } from "./produce-bench";
import { schedulerBenchmark } from "./scheduler-bench";

async function main(): Promise<void> {
  const db: TestDatabase = await createTestDatabase("lastword_bench_worker");
  const dataDir = await mkdtemp(join(tmpdir(), "lastword-bench-"));
  try {
    console.log(`worker bench — ${new Date().toISOString()}`);
    const parts = process.argv.slice(2);
    const wanted = (name: string) => parts.length === 0 || parts.includes(name);
    if (wanted("produce")) await produceBenchmark({ db, dataDir: join(dataDir, "produce") });
    if (wanted("durable")) await durableBenchmark({ db, dataDir: join(dataDir, "durable") });
    if (wanted("scheduler")) await schedulerBenchmark({ db, dataDir: join(dataDir, "scheduler") });
  } finally {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
