import type { DecodedRequest } from "@lastword/kafka-protocol";

// Every fault a test may inject into the worker, declared in this one module: the crash points
// (a step the process dies at) and the Kafka listener's hooks (answers a test wants instead of the
// real ones). Production code calls these hooks and never imports what arms them: crashAt below,
// and kafka/test-faults.ts (which builds its answers with the handlers' own builders).

/**
 * Test-only crash points (LASTWORD_FAULT_POINT, refused in production): the worker process
 * SIGKILLs itself when it reaches the named step, so crash tests can stop it exactly there.
 * - `after-append`: a produce (REST or Kafka, hosting/write-path.ts) is in the log, not yet answered
 *   (a resend answered as a duplicate appended nothing and does not stop there);
 * - `before-manifest-commit`: a commit window's object is PUT, its manifest rows not committed;
 * - `before-segment-swap`: a closed (or cleaned) segment's object is PUT, the rows it replaces not swapped;
 * - `before-tail-swap`: a partition's consolidated commit rows are PUT as its own object, not swapped;
 * - `before-superseded-delete`: the manifest stopped naming an object, which is not deleted yet;
 * - `after-clean-before-upload`: a cleaner pass swapped its segments on disk, none uploaded yet;
 * - `after-txn-prepare`: a transaction's PrepareCommit/PrepareAbort is durable, no marker written yet
 *   (the next coordinator must finish it: kafka/transactions/txn-coordinator.ts).
 */
export const FAULT_POINTS = [
  "after-append",
  "before-manifest-commit",
  "before-segment-swap",
  "before-tail-swap",
  "before-superseded-delete",
  "after-clean-before-upload",
  "after-txn-prepare",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

/** The one spelling of a crash point: the step calls `fault?.("after-append")`, and so on. */
export type CrashHook = (point: FaultPoint) => void;

/** The crash hook for `point` (a no-op unless it is the configured one). */
export function crashAt(configured: FaultPoint | undefined): CrashHook {
  return (point) => {
    if (point === configured) process.kill(process.pid, "SIGKILL");
  };
}

/** What the Kafka connection does with a request an injected fault matched. */
export type InjectedFault = { kind: "answer"; body: object } | { kind: "throttle"; throttleTimeMs: number };

/** The Kafka listener's side of injected faults (WORKER_KAFKA_TEST_FAULTS, kafka/test-faults.ts). */
export interface KafkaFaultHooks {
  /** The fault for this request, or null to serve it normally. */
  take(request: DecodedRequest): InjectedFault | null;
  /** Awaited inside an OffsetCommit after its checks passed, just before its write. */
  beforeOffsetWrite(): Promise<void>;
  /** Whether a Produce that appended is to go unanswered (its connection closed). */
  takeDropAfterAppend(): boolean;
}
