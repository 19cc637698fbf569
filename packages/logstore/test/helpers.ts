import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { PartitionLog, type PartitionLogOptions } from "../src/index";

/** A settable clock for tests: time only moves when the test moves it. */
export class TestClock {
  constructor(public ms = 1_700_000_000_000) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const dirs: string[] = [];
const logs: PartitionLog[] = [];

afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "logstore-test-"));
  dirs.push(dir);
  return dir;
}

/** Opens a log that is closed after the test (closing twice is harmless). */
export async function openLog(
  options: Partial<PartitionLogOptions> & { dir?: string } = {},
): Promise<PartitionLog> {
  const log = await PartitionLog.open({ dir: options.dir ?? tempDir(), ...options } as PartitionLogOptions);
  logs.push(log);
  return log;
}

export function kv(key: string | null, value: string | null, timestamp?: number) {
  return {
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}

export function text(buffer: Buffer | null): string | null {
  return buffer === null ? null : buffer.toString();
}
