import type { DecodedRequest } from "@lastword/kafka-protocol";

// The listener's side of injected faults, in its own module so the production graph never imports
// the test-fault rules: the connection and the handlers call these hooks, and test-faults.ts (which
// builds its answers with the handlers' own builders) implements them.

/** What the connection does with a request a fault matched. */
export type InjectedFault = { kind: "answer"; body: object } | { kind: "throttle"; throttleTimeMs: number };

export interface KafkaFaultHooks {
  /** The fault for this request, or null to serve it normally. */
  take(request: DecodedRequest): InjectedFault | null;
  /** Awaited inside an OffsetCommit after its checks passed, just before its write. */
  beforeOffsetWrite(): Promise<void>;
  /** Whether a Produce that appended is to go unanswered (its connection closed). */
  takeDropAfterAppend(): boolean;
}
