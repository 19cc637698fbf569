import { pino } from "pino";

export type Logger = pino.Logger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** One JSON line per event on stdout, each carrying the worker id. */
export function createLogger(workerId: string, level: LogLevel): Logger {
  return pino({ level, base: { workerId }, timestamp: pino.stdTimeFunctions.isoTime });
}
