import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PartitionLog } from "../src/index";
import { useBundledChild } from "./child-bundle";
import { batchCount, batchValue, PRODUCER_CHILD_CONFIG, producerBatch } from "./fixtures/producer-batches";
import { replayLog, tempDir } from "./helpers";

// SIGKILLs a real child appending one idempotent producer's batches, again and again on one
// directory. After each kill the log is reopened (producer state from its snapshots and the log
// tail; kills land mid-roll and mid-snapshot too) and the batch that may have been in flight is
// resent as it was: it is answered as a duplicate if it was written, appended if not, and the
// last acknowledged batch resent is a duplicate with its acknowledged offsets. In the end every
// batch is in the log exactly once, in order.

const TRIALS = 25;
const here = path.dirname(fileURLToPath(import.meta.url));
const bundled = useBundledChild(path.join(here, "fixtures/producer-child.ts"), {
  prefix: "logstore-producer-child-",
});

interface Ack {
  batchId: number;
  baseOffset: number;
  lastOffset: number;
}

/** Runs the child until it has acknowledged `acks` batches (then SIGKILLs it); its acks. */
function runAndKill(dir: string, firstId: number, acks: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundled.script, dir, String(firstId)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if ((stdout.match(/^ack /gm)?.length ?? 0) >= acks) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      if (signal !== "SIGKILL") return reject(new Error(`child exited on its own (${signal}): ${stderr}`));
      resolve(
        stdout
          .split("\n")
          .filter((line) => line.startsWith("ack ") && stdout.includes(`${line}\n`))
          .map((line) => {
            const [, batchId, baseOffset, lastOffset] = line.split(" ").map(Number);
            return { batchId: batchId!, baseOffset: baseOffset!, lastOffset: lastOffset! };
          }),
      );
    });
  });
}

describe("producer state across SIGKILLs", () => {
  it("1. a resend after a kill is a duplicate if the batch was written, an append if not; every batch once", async () => {
    const dir = tempDir();
    const acked = new Map<number, Ack>();
    let next = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const acks = await runAndKill(dir, next, 1 + ((trial * 7) % 13));
      for (const ack of acks) acked.set(ack.batchId, ack);
      const lastAcked = acks.at(-1)?.batchId ?? next - 1;
      const log = await PartitionLog.open({ dir, config: PRODUCER_CHILD_CONFIG });
      try {
        if (lastAcked >= 0) {
          const { records, producer } = producerBatch(lastAcked);
          const { baseOffset, lastOffset } = acked.get(lastAcked)!;
          expect(await log.append(records, { producer })).toEqual({
            baseOffset,
            lastOffset,
            duplicate: true,
          });
        }
        const inFlight = lastAcked + 1;
        const { records, producer } = producerBatch(inFlight);
        const endBefore = log.logEndOffset;
        const resent = await log.append(records, { producer });
        if (resent.duplicate) expect(resent.lastOffset).toBe(endBefore - 1);
        else expect(resent.baseOffset).toBe(endBefore);
        acked.set(inFlight, { batchId: inFlight, ...resent });
        next = inFlight + 1;
      } finally {
        await log.close();
      }
    }
    const log = await PartitionLog.open({ dir, config: PRODUCER_CHILD_CONFIG });
    try {
      const values = (await replayLog(log)).map((r) => r.value!.toString());
      const expected: string[] = [];
      for (let b = 0; b < next; b++) for (let i = 0; i < batchCount(b); i++) expected.push(batchValue(b, i));
      expect(values).toEqual(expected);
      expect(log.segments().length).toBeGreaterThan(3);
    } finally {
      await log.close();
    }
  });
});
