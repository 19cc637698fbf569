import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeRecordBatch } from "@lastword/record-batch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FloorBroker, memoryTopic, memoryView, startFloorBroker } from "../bench/floor-broker";
import { run } from "./kafka-client";

// The Kafka bench's harness at a tiny size: its floor broker serves stored batches to librdkafka
// (the bench's own python client and kcat) and takes a produce, so the floor rows measure a broker
// that works, not one that fails fast.

const client = join(import.meta.dirname, "../bench/librdkafka-client.py");
let dir: string;
let broker: FloorBroker;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kafka-bench-floor-"));
  // Partition 0: offsets 0–9 in two batches, keys k0…k4 twice (the second write wins) and one tombstone.
  const records = (from: number) =>
    Array.from({ length: 5 }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: from > 0 && i === 4 ? null : Buffer.from(`v${from + i}`),
    }));
  const log = Buffer.concat([
    encodeRecordBatch(records(0), { baseOffset: 0, appendTimeMs: 1 }),
    encodeRecordBatch(records(5), { baseOffset: 5, appendTimeMs: 2 }),
  ]);
  mkdirSync(join(dir, "0"));
  writeFileSync(join(dir, "0", "00000000000000000000.log"), log);
  const flags = memoryTopic([join(dir, "0", "00000000000000000000.log")]);
  broker = await startFloorBroker({
    topics: { flags, "flags.latest": memoryView(flags) },
    produceFile: join(dir, "produced.log"),
  });
});

afterAll(async () => {
  await broker?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the Kafka bench's floor broker", () => {
  it("serves every stored record to the bench's librdkafka consumer and to kcat -C -e", async () => {
    const { stdout } = await run(
      "/usr/bin/python3",
      [client, "consume", broker.bootstrap, "-", "-", "flags", "1"],
      {
        timeout: 30_000,
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ records: 10, keys: 4 });
    const kcat = await run(
      "kcat",
      ["-b", broker.bootstrap, "-C", "-t", "flags", "-e", "-q", "-f", "%o:%k:%s\\n"],
      {
        timeout: 30_000,
      },
    );
    const lines = kcat.stdout.trim().split("\n");
    expect(lines).toHaveLength(10);
    expect(lines[8]).toBe("8:k3:v8");
  });

  it("serves the view's batches: each key's latest record at its own offset, nothing superseded", async () => {
    const { stdout } = await run(
      "/usr/bin/python3",
      [client, "consume", broker.bootstrap, "-", "-", "flags.latest", "1"],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toMatchObject({ records: 5, keys: 4 });
    const kcat = await run(
      "kcat",
      ["-b", broker.bootstrap, "-C", "-t", "flags.latest", "-e", "-q", "-f", "%o:%k:%s\\n"],
      { timeout: 30_000 },
    );
    expect(kcat.stdout.trim().split("\n")).toEqual(["5:k0:v5", "6:k1:v6", "7:k2:v7", "8:k3:v8", "9:k4:"]);
  });

  it("writes what the bench's librdkafka producer sends, acks=all", async () => {
    const { stdout } = await run(
      "/usr/bin/python3",
      [client, "produce", broker.bootstrap, "-", "-", "produced", "2", "10", "100"],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toMatchObject({ records: 20 });
    // The warm-up record and 20 records of 100-byte values, in record batches.
    expect(statSync(join(dir, "produced.log")).size).toBeGreaterThan(21 * 100);
  });

  it("writes what kcat -P sends from a file, acks=all", async () => {
    const before = statSync(join(dir, "produced.log")).size;
    const lines = join(dir, "lines.txt");
    writeFileSync(lines, Array.from({ length: 50 }, (_, i) => `key-${i}:${"v".repeat(100)}\n`).join(""));
    await run(
      "kcat",
      ["-b", broker.bootstrap, "-P", "-t", "produced", "-p", "0", "-K", ":", "-l", lines, "-X", "acks=all"],
      {
        timeout: 30_000,
      },
    );
    expect(statSync(join(dir, "produced.log")).size - before).toBeGreaterThan(50 * 100);
  });
});
