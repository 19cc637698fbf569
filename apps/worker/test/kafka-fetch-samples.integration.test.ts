import { spawn } from "node:child_process";
import { eventually } from "@lastword/db/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { kcatSasl, run } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { testScheduling } from "./worker-harness";

// Records a Kafka consumer fetches reach the minute's PartitionSample (the console's fetch rate).
const ORG = "org_fetch_samples";
const world = useKafkaWorld({ name: "fetch-samples", secret: "fetch-samples-secret" }, ORG, {
  topics: { reads: 1 },
  scopes: ["topics:read", "records:read", "records:write"],
  worker: { scheduling: testScheduling({ tickMs: 200 }) },
});
let sasl: string[];

beforeAll(() => {
  sasl = kcatSasl(world.bootstrap, world.key);
});

/** The records fetched from the topic over every sampled minute. */
async function fetchedRecords(): Promise<bigint> {
  const rows = await world.h.db.prisma.partitionSample.findMany({
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
      (await world.h.db.prisma.partitionSample.count({ where: { logEndOffset: 12n } })) > 0
        ? true
        : undefined,
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
