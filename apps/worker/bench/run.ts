// Worker benchmarks (`npm run bench`): produce through the data plane vs in-process append, produce
// with an object store (durable and relaxed), the cleaner scheduler over 2,000 partitions of 200
// tenants, and the Kafka listener (cold start, fetch, produce with real clients). Needs Postgres and
// Redis (like the tests), kcat and python3-confluent-kafka.
// Arguments pick parts: `npm run bench -w @lastword/worker -- kafka` (default: produce durable scheduler kafka).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { durableBenchmark } from "./durable-bench";
import { kafkaBenchmark } from "./kafka-bench";
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
    // Its own database and processes (bench/flag-states.ts of the client package); BENCH_KEYS scales it.
    if (wanted("kafka")) await kafkaBenchmark();
  } finally {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
