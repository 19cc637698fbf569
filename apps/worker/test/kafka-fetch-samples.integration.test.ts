import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { createKafkaKey, createNamedTopic, kcatSasl, startKafkaWorker } from "./kafka-client";
import { openWorkerHarness, testScheduling, type WorkerHarness } from "./worker-harness";

// Records a Kafka consumer fetches reach the minute's PartitionSample (the console's fetch rate).
const run = promisify(execFile);
const ORG = "org_fetch_samples";
let h: WorkerHarness;
let worker: RunningWorker;
let sasl: string[];

beforeAll(async () => {
  h = await openWorkerHarness({ name: "fetch-samples", secret: "fetch-samples-secret" });
  await createNamedTopic(h.db.prisma, ORG, "reads", 1);
  const key = await createKafkaKey(h.db.prisma, ORG, ["topics:read", "records:read", "records:write"]);
  ({ worker } = await startKafkaWorker(h, 1, { scheduling: testScheduling({ tickMs: 200 }) }));
  sasl = kcatSasl(`${worker.kafka!.host}:${worker.kafka!.port}`, key);
});

afterAll(async () => {
  await h?.close();
});

/** The records fetched from the topic over every sampled minute. */
async function fetchedRecords(): Promise<bigint> {
  const rows = await h.db.prisma.partitionSample.findMany({
    where: { partition: { topic: { organizationId: ORG, name: "reads" } } },
  });
  return rows.reduce((sum, row) => sum + row.fetchedRecords, 0n);
}

describe("fetch samples", () => {
  it("counts the records kcat fetched over Kafka in the partition's samples", async () => {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("kcat", [...sasl, "-P", "-t", "reads", "-K:"], {
        stdio: ["pipe", "ignore", "pipe"],
      });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`kcat -P exited ${code}`))));
      child.stdin.end(`${Array.from({ length: 12 }, (_, i) => `k${i}:v${i}`).join("\n")}\n`);
    });
    // Produced only: samples come, with nothing fetched yet.
    await eventually("a sample of the produced partition", 20_000, async () =>
      (await h.db.prisma.partitionSample.count({ where: { logEndOffset: 12n } })) > 0 ? true : undefined,
    );
    expect(await fetchedRecords()).toBe(0n);

    const { stdout } = await run("kcat", [...sasl, "-C", "-t", "reads", "-e", "-q", "-f", "%k\\n"], {
      timeout: 30_000,
    });
    expect(stdout.trim().split("\n")).toHaveLength(12);
    // The tally reaches the row at the next sample write (at most 10 s into the minute, or a new one).
    await eventually("the fetched records sampled", 30_000, async () =>
      (await fetchedRecords()) >= 12n ? true : undefined,
    );
  });
});
