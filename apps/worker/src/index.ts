export { type DataPlaneServerOptions, MAX_REQUEST_BYTES } from "./dataplane/dataplane-server";
export type { HostedLog, OpenLog, OpenLogOptions } from "./hosting/hosted-log";
export { partitionLogOpener } from "./hosting/log-opener";
export type { Logger, LogLevel } from "./logger";
export {
  DEFAULT_CLAIM_INTERVAL_MS,
  DEFAULT_LEASE_TTL_MS,
  type RunningWorker,
  startWorker,
  type WorkerConfig,
} from "./worker";
