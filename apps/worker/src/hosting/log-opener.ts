import { type Durability, PartitionLog } from "@lastword/logstore";
import type { HostedLog, OpenLog } from "./hosted-log";

/** Binds the worker to the real log store; `durability` picks per-append fsync or group commit. */
export function partitionLogOpener(
  options: { durability?: Durability; dedupeBufferBytes?: number } = {},
): OpenLog {
  return async ({ dir, config, clock, beforeWrite, remote }): Promise<HostedLog> =>
    PartitionLog.open({
      dir,
      config,
      clock,
      beforeWrite,
      remote,
      durability: options.durability,
      dedupeBufferBytes: options.dedupeBufferBytes,
    });
}
