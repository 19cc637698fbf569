// Named points between the durable steps of a cleaning pass. Production code only calls `reach`;
// the crash tests install a handler that SIGKILLs the process at a chosen point, so every step
// of the swap protocol is interrupted on purpose rather than only by chance.

export type CleanerFaultPoint =
  | "cleaned-data-written"
  | "cleaned-synced"
  | "range-recorded"
  | "promoted"
  | "promotion-synced"
  | "replaced-in-memory"
  | "old-segment-retired"
  | "installed"
  | "swap-synced"
  | "checkpoint-written";

let handler: ((point: CleanerFaultPoint) => void) | null = null;

/** Installs (or with null removes) the handler called at every fault point. */
export function onCleanerFaultPoint(next: ((point: CleanerFaultPoint) => void) | null): void {
  handler = next;
}

export function reachFaultPoint(point: CleanerFaultPoint): void {
  if (handler !== null) handler(point);
}
