// Child process for cleaner-crash.test.ts: runs forced cleaning passes over a partition directory
// at given clock times and SIGKILLs itself at the Nth cleaner fault point (0 = never).
// With `snapshots`, prints the hashes of the live .log files at every fault point, so the parent
// knows the exact directory state before and after each group's swap.
// argv: <dir> <json: { config, dedupeBufferBytes, passTimesMs, killAt, snapshots }>
import { onCleanerFaultPoint } from "../src/cleaner-fault-points";
import { PartitionLog } from "../src/index";
import { liveLogHashes } from "./cleaner-crash-snapshot";

interface Spec {
  config: Record<string, string | number>;
  dedupeBufferBytes: number;
  passTimesMs: number[];
  killAt: number;
  snapshots: boolean;
}

async function main(): Promise<void> {
  const [dir, specText] = process.argv.slice(2);
  const spec = JSON.parse(specText!) as Spec;
  let hits = 0;
  onCleanerFaultPoint((point) => {
    hits++;
    if (spec.snapshots) process.stdout.write(`snap ${point} ${JSON.stringify(liveLogHashes(dir!))}\n`);
    if (hits === spec.killAt) process.kill(process.pid, "SIGKILL");
  });
  let nowMs = spec.passTimesMs[0]!;
  const log = await PartitionLog.open({
    dir: dir!,
    config: spec.config,
    dedupeBufferBytes: spec.dedupeBufferBytes,
    clock: { now: () => nowMs },
  });
  process.stdout.write("ready\n");
  for (const t of spec.passTimesMs) {
    nowMs = t;
    await log.clean({ force: true });
  }
  await log.close();
  process.stdout.write(`done ${hits}\n`);
}

void main();
