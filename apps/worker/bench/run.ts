// Worker benchmarks (`npm run bench`): produce through the data plane vs in-process append, the
// cleaner scheduler over 2,000 partitions of 200 tenants, produce and cold start with an object store
// (objects), the cleaner and an erasure over remote segments (tiering), a compacted partition of
// 1 M keys in object storage moving to an empty worker (takeover), erasure requests filed →
// proven on npm start's setup (erasure), 50 workers' Postgres load
// simulated (fleet), and the Kafka listener (cold start, fetch,
// produce with real clients: kafka), one tenant's latency under another's flood (noisy), and partitions
// moving off a SIGKILLed or SIGTERMed worker process (failover). Needs Postgres and Redis (like the tests), kcat and
// python3-confluent-kafka. Arguments pick parts: `npm run bench -w @lastword/worker -- kafka`
// (default: all of them).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { erasureProofBenchmark } from "./erasure-proof-bench";
import { failoverBenchmark } from "./failover-bench";
import { fleetBenchmark } from "./fleet-bench";
import { kafkaBenchmark } from "./kafka-bench";
import { noisyNeighbourBenchmark } from "./noisy-bench";
import { objectsBenchmark } from "./objects-bench";
import { produceBenchmark } from "./produce-bench";
import { schedulerBenchmark } from "./scheduler-bench";
import { takeoverBenchmark } from "./takeover-bench";
import { tieringBenchmark } from "./tiering-bench";

async function main(): Promise<void> {
  const db: TestDatabase = await createTestDatabase("lastword_bench_worker");
  const dataDir = await mkdtemp(join(tmpdir(), "lastword-bench-"));
  try {
    console.log(`worker bench — ${new Date().toISOString()}`);
    const parts = process.argv.slice(2);
    const wanted = (name: string) => parts.length === 0 || parts.includes(name);
    if (wanted("produce")) await produceBenchmark({ db, dataDir: join(dataDir, "produce") });
    if (wanted("scheduler")) await schedulerBenchmark({ db, dataDir: join(dataDir, "scheduler") });
    if (wanted("objects")) await objectsBenchmark({ dataDir: join(dataDir, "objects") });
    if (wanted("fleet")) await fleetBenchmark();
    if (wanted("tiering")) await tieringBenchmark({ dataDir: join(dataDir, "tiering") });
    // A compacted partition of 1 M keys in object storage moving to an empty worker (issue 35).
    if (wanted("takeover")) await takeoverBenchmark({ dataDir: join(dataDir, "takeover") });
    if (wanted("erasure")) await erasureProofBenchmark({ dataDir: join(dataDir, "erasure") });
    // Its own database and processes (bench/flag-states.ts of the client package); BENCH_KEYS scales it.
    if (wanted("kafka")) await kafkaBenchmark();
    // Tenant A's latency alone and under tenant B's flood, one worker process (issue 27).
    if (wanted("noisy")) await noisyNeighbourBenchmark();
    // Three worker processes under a kafkajs producer; owners SIGKILLed and SIGTERMed (issue 29).
    if (wanted("failover")) await failoverBenchmark();
  } finally {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
