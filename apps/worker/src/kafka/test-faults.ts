import { ApiKey, type DecodedRequest } from "@lastword/kafka-protocol";
import { z } from "zod";
import type { InjectedFault, KafkaFaultHooks } from "../fault-points";
import { offsetCommitFailed } from "./groups/offset-commit-handler";

/**
 * Test-only fault injection for the Kafka listener: each rule answers the first matching request
 * after the worker started with an error (or, for Fetch, the real answer with a throttle time),
 * then disarms, so a real client's retry path can be tested against real handlers. A Produce rule
 * with `drop: "after-append"` instead lets the request append and closes the connection unanswered
 * (the client must re-send what is already written). Set only through WORKER_KAFKA_TEST_FAULTS (a
 * JSON list of rules); without it the listener has no TestFaults at all and every request goes to
 * its handler.
 */
export const testFaultRuleSchema = z.union([
  z.strictObject({ api: z.literal("Produce"), errorCode: z.number().int() }),
  z.strictObject({ api: z.literal("Produce"), drop: z.literal("after-append") }),
  z.strictObject({ api: z.literal("Heartbeat"), errorCode: z.number().int() }),
  z.strictObject({ api: z.literal("OffsetCommit"), errorCode: z.number().int() }),
  z.strictObject({ api: z.literal("Fetch"), throttleTimeMs: z.number().int().positive() }),
]);
export type TestFaultRule = z.infer<typeof testFaultRuleSchema>;

const API_KEY_OF = {
  Produce: ApiKey.Produce,
  Heartbeat: ApiKey.Heartbeat,
  OffsetCommit: ApiKey.OffsetCommit,
  Fetch: ApiKey.Fetch,
} as const;

export class TestFaults implements KafkaFaultHooks {
  readonly #armed: TestFaultRule[];
  #beforeOffsetWrite: (() => Promise<void>) | null = null;

  constructor(rules: readonly TestFaultRule[]) {
    this.#armed = [...rules];
  }

  /** Adds rules to fire (a test arms each just before the step that should meet it). */
  arm(...rules: TestFaultRule[]): void {
    this.#armed.push(...rules);
  }

  /** Rules not yet fired (the test reads this to know each fault was met). */
  get armed(): readonly TestFaultRule[] {
    return this.#armed;
  }

  /** The fault for this request, disarming its rule, or null to serve it normally. */
  take(request: DecodedRequest): InjectedFault | null {
    const at = this.#armed.findIndex((r) => API_KEY_OF[r.api] === request.apiKey && !("drop" in r));
    const rule = this.#armed[at];
    // A drop rule fires after the append (takeDropAfterAppend), never in place of the handler.
    if (!rule || "drop" in rule) return null;
    const fault = faultFor(rule, request);
    if (fault) this.#armed.splice(at, 1);
    return fault;
  }

  /**
   * Runs `hook` once, inside the next OffsetCommit after its checks passed and just before its
   * write (an in-process test moves the group's lease there, as a takeover racing the commit).
   */
  onNextOffsetWrite(hook: () => Promise<void>): void {
    this.#beforeOffsetWrite = hook;
  }

  /** The OffsetCommit handler's call: the hook set by onNextOffsetWrite, if any, disarmed. */
  async beforeOffsetWrite(): Promise<void> {
    const hook = this.#beforeOffsetWrite;
    this.#beforeOffsetWrite = null;
    await hook?.();
  }

  /** Whether a Produce that appended is to go unanswered (its connection closed), disarming the rule. */
  takeDropAfterAppend(): boolean {
    const at = this.#armed.findIndex((r) => "drop" in r);
    if (at < 0) return false;
    this.#armed.splice(at, 1);
    return true;
  }
}

function faultFor(
  rule: Exclude<TestFaultRule, { drop: string }>,
  request: DecodedRequest,
): InjectedFault | null {
  if (rule.api === "Fetch") return { kind: "throttle", throttleTimeMs: rule.throttleTimeMs };
  const { errorCode } = rule;
  if (request.apiKey === ApiKey.Produce) {
    // acks=0 gets no answer at all, so an error there would never reach the client.
    if (request.body.acks === 0) return null;
    return {
      kind: "answer",
      body: {
        throttleTimeMs: 0,
        responses: request.body.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => ({
            index: p.index,
            errorCode,
            baseOffset: -1n,
            logAppendTimeMs: -1n,
            logStartOffset: -1n,
            recordErrors: [],
            errorMessage: "injected by WORKER_KAFKA_TEST_FAULTS",
          })),
        })),
      },
    };
  }
  if (request.apiKey === ApiKey.OffsetCommit) {
    return { kind: "answer", body: offsetCommitFailed(request.body, errorCode) };
  }
  return { kind: "answer", body: { throttleTimeMs: 0, errorCode } };
}
