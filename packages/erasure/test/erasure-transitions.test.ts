import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ALLOWED_FROM,
  applyErasureEvent,
  ERASURE_AUDIT_SCHEMAS,
  ERASURE_STAGES,
  ERASURE_STATUSES,
  type ErasureEvent,
  type ErasureState,
  type ErasureStatus,
  EVENT_ACTIONS,
  isTerminal,
  receiveErasureRequest,
  stageOf,
} from "../src/index";
import { at, DAY_MS, stateIn } from "./fixtures";

const written = [
  { topicId: "t", partition: 0, offset: 3, subjectKey: "a2V5", writtenAt: at(50).toISOString() },
];
const evidence = [
  {
    topicId: "t",
    partition: 0,
    offset: 3,
    subjectKey: "a2V5",
    passRequestedAt: null,
    verifiedAt: at(60).toISOString(),
    result: "absent" as const,
    bytesScanned: 10,
    segments: [],
  },
];

/** One of each event, at times that satisfy the clock guards of the 30-day fixture. */
const EVENTS: Record<ErasureEvent["type"], ErasureEvent> = {
  "tombstones-written": { type: "tombstones-written", tombstones: written },
  "tombstones-failed": { type: "tombstones-failed", reason: "disk full", tombstones: [] },
  "all-purged": { type: "all-purged", evidence, purgedAt: at(DAY_MS) },
  "all-expired": { type: "all-expired", evidence },
  close: { type: "close" },
  "deadline-near": { type: "deadline-near", unpurgedPartitions: 2 },
  "filed-at-risk": { type: "filed-at-risk", reason: "accounts cannot meet it: set min.compaction.lag.ms=0" },
  "deadline-passed": { type: "deadline-passed" },
  "deadline-extended": {
    type: "deadline-extended",
    deadlineAt: at(40 * DAY_MS),
    reason: "court order",
    tombstonesWritten: true,
  },
};
/** A moment each event's clock guard accepts: near the deadline, past it, or any time. */
const WHEN: Record<ErasureEvent["type"], Date> = {
  ...Object.fromEntries(Object.keys(EVENTS).map((type) => [type, at(DAY_MS)])),
  "deadline-near": at(30 * DAY_MS - 3_600_000),
  "deadline-passed": at(30 * DAY_MS + 1),
} as Record<ErasureEvent["type"], Date>;

function apply(status: ErasureStatus, type: ErasureEvent["type"]) {
  return applyErasureEvent(stateIn(status), EVENTS[type], WHEN[type]);
}

describe("erasure transitions", () => {
  it("receives a request into received, recording what it covers", () => {
    const step = receiveErasureRequest(
      {
        receivedAt: at(0),
        deadlineAt: at(DAY_MS),
        subjectKeys: ["a2V5"],
        topics: ["accounts"],
        allCompacted: false,
        requester: "dpo@example.com",
        topicsMissingDeadline: [],
      },
      at(0),
    );
    expect(step).toMatchObject({
      ok: true,
      state: { status: "received" },
      audit: { action: "erasure.request.created" },
    });
  });

  it("refuses to receive a request whose deadline is not in the future", () => {
    const step = receiveErasureRequest(
      {
        receivedAt: at(0),
        deadlineAt: at(0),
        subjectKeys: [],
        topics: [],
        allCompacted: true,
        requester: null,
        topicsMissingDeadline: [],
      },
      at(0),
    );
    expect(step).toMatchObject({ ok: false, code: "DEADLINE_NOT_IN_FUTURE" });
  });

  it.each([
    ["received", "tombstones-written", "tombstoned"],
    ["received", "tombstones-failed", "failed"],
    ["tombstoned", "all-purged", "purged"],
    ["at-risk", "all-purged", "purged"],
    ["failed", "all-purged", "purged"],
    ["tombstoned", "filed-at-risk", "at-risk"],
    ["purged", "all-expired", "tombstone-expired"],
    ["tombstone-expired", "close", "closed"],
    ["tombstoned", "deadline-near", "at-risk"],
    ["received", "deadline-passed", "failed"],
    ["tombstoned", "deadline-passed", "failed"],
    ["at-risk", "deadline-passed", "failed"],
    ["received", "deadline-extended", "received"],
    ["tombstoned", "deadline-extended", "tombstoned"],
    ["at-risk", "deadline-extended", "tombstoned"],
    ["failed", "deadline-extended", "tombstoned"],
  ] as const)("%s + %s → %s, with its one audit event", (from, type, to) => {
    const step = apply(from, type);
    if (!step.ok) throw new Error(step.message);
    expect(step.state.status).toBe(to);
    expect(step.audit.action).toBe(EVENT_ACTIONS[type]);
    const data = ERASURE_AUDIT_SCHEMAS[step.audit.action].parse(step.audit.data);
    if ("from" in data && type !== "deadline-extended") expect(data).toMatchObject({ from, to });
  });

  it("allows each event only from its listed statuses (nothing is purged before it is tombstoned)", () => {
    for (const type of Object.keys(EVENTS) as ErasureEvent["type"][])
      for (const status of ERASURE_STATUSES) {
        const step = apply(status, type);
        expect(step.ok, `${status} + ${type}`).toBe(ALLOWED_FROM[type].includes(status));
        if (!step.ok) expect(step.code).toBe("NOT_ALLOWED_FROM_STATUS");
      }
    expect(apply("received", "all-purged")).toMatchObject({ ok: false, code: "NOT_ALLOWED_FROM_STATUS" });
  });

  it("extends the deadline while it binds or once it failed with its tombstones written, and only later", () => {
    for (const status of ["purged", "tombstone-expired", "closed"] as const)
      expect(apply(status, "deadline-extended")).toMatchObject({
        ok: false,
        message: `A ${status} request cannot be extended.`,
      });
    const unwritten = { ...EVENTS["deadline-extended"], tombstonesWritten: false };
    expect(applyErasureEvent(stateIn("failed"), unwritten, at(DAY_MS))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/never written/),
    });
    const past = { ...EVENTS["deadline-extended"], deadlineAt: at(31 * DAY_MS) };
    expect(applyErasureEvent(stateIn("failed"), past, at(32 * DAY_MS))).toMatchObject({
      ok: false,
      code: "DEADLINE_NOT_IN_FUTURE",
    });
    const earlier = { type: "deadline-extended", deadlineAt: at(29 * DAY_MS), reason: "oops" } as const;
    expect(applyErasureEvent(stateIn("tombstoned"), earlier, at(DAY_MS))).toMatchObject({
      ok: false,
      code: "DEADLINE_NOT_LATER",
    });
  });

  it("records each extension, and an at-risk request is back on track with more time", () => {
    const step = applyErasureEvent(
      stateIn("at-risk", { statusReason: "late" }),
      EVENTS["deadline-extended"],
      at(DAY_MS),
    );
    if (!step.ok) throw new Error(step.message);
    expect(step.state).toMatchObject({
      status: "tombstoned",
      statusReason: null,
      deadlineAt: at(40 * DAY_MS),
    });
    expect(step.state.extensions).toEqual([
      {
        at: at(DAY_MS).toISOString(),
        from: at(30 * DAY_MS).toISOString(),
        to: at(40 * DAY_MS).toISOString(),
        reason: "court order",
      },
    ]);
    expect(step.audit).toEqual({ action: "erasure.deadline.extended", data: step.state.extensions[0] });
  });

  it("marks at risk only inside the last tenth of the window, and fails only past the deadline", () => {
    const tombstoned = stateIn("tombstoned");
    const near = EVENTS["deadline-near"];
    expect(applyErasureEvent(tombstoned, near, at(26 * DAY_MS)).ok).toBe(false);
    expect(applyErasureEvent(tombstoned, near, at(30 * DAY_MS - 1)).ok).toBe(true);
    expect(applyErasureEvent(tombstoned, near, at(30 * DAY_MS + 1)).ok).toBe(false);
    expect(applyErasureEvent(tombstoned, EVENTS["deadline-passed"], at(30 * DAY_MS))).toMatchObject({
      ok: false,
      code: "NOT_DUE",
    });
  });

  it("says why a request failed: never written, or unproven by the deadline", () => {
    const never = apply("received", "deadline-passed");
    const late = apply("tombstoned", "deadline-passed");
    expect(never.ok && never.state.statusReason).toMatch(/never written/);
    expect(late.ok && late.state.statusReason).toMatch(/passed before every partition was verified purged/);
  });

  it("stamps closedAt when it closes and says how early the purge was", () => {
    const closed = apply("tombstone-expired", "close");
    expect(closed.ok && closed.state.closedAt).toEqual(WHEN.close);
    const purged = apply("tombstoned", "all-purged");
    expect(purged.ok && purged.audit).toMatchObject({ data: { beforeDeadlineMs: 29 * DAY_MS } });
  });
});

const eventArb: fc.Arbitrary<ErasureEvent> = fc.oneof(
  fc.constant(EVENTS["tombstones-written"]),
  fc.constant(EVENTS["tombstones-failed"]),
  fc.integer({ min: 0, max: 40 * DAY_MS }).map((ms) => ({ ...EVENTS["all-purged"], purgedAt: at(ms) })),
  fc.constant(EVENTS["all-expired"]),
  fc.constant(EVENTS.close),
  fc.integer({ min: 1, max: 5 }).map((n) => ({ type: "deadline-near" as const, unpurgedPartitions: n })),
  fc.constant(EVENTS["deadline-passed"]),
  fc.integer({ min: -DAY_MS, max: 10 * DAY_MS }).map((days) => ({
    type: "deadline-extended" as const,
    deadlineAt: at(30 * DAY_MS + days),
    reason: "more time",
    tombstonesWritten: true,
  })),
  fc.constant(EVENTS["filed-at-risk"]),
);

function rank(status: ErasureStatus): number | null {
  const stage = stageOf(status);
  return stage === null ? null : ERASURE_STAGES.indexOf(stage);
}

describe("erasure lifecycle (property)", () => {
  it("from received, any events: no stage skipped, no terminal state left, one matching audit event per step", () => {
    const run = fc.array(fc.tuple(eventArb, fc.integer({ min: 0, max: 3 * DAY_MS })), { maxLength: 40 });
    fc.assert(
      fc.property(run, (events) => {
        let state: ErasureState = stateIn("received");
        let nowMs = 0;
        const visited: ErasureStatus[] = [state.status];
        let reopened = false;
        for (const [event, advanceMs] of events) {
          nowMs += advanceMs;
          const step = applyErasureEvent(state, event, at(nowMs));
          if (!step.ok) continue;
          // Only a person leaves failed: more time, or a re-verification that finds it purged.
          const reopens =
            state.status === "failed" && ["deadline-extended", "all-purged"].includes(event.type);
          reopened ||= reopens;
          expect(isTerminal(state.status) && !reopens, `left terminal ${state.status}`).toBe(false);
          const [before, after] = [rank(state.status), rank(step.state.status)];
          if (after === null) expect(step.state.status).toBe("failed");
          else if (!reopens) expect(after - (before ?? Number.NaN)).toBeOneOf([0, 1]);
          expect(step.audit.action).toBe(EVENT_ACTIONS[event.type]);
          const data = ERASURE_AUDIT_SCHEMAS[step.audit.action].safeParse(step.audit.data);
          expect(data.success).toBe(true);
          if (event.type !== "deadline-extended")
            expect(step.audit.data).toMatchObject({ from: state.status, to: step.state.status });
          state = step.state;
          if (visited.at(-1) !== state.status) visited.push(state.status);
        }
        // The stages walked are a prefix of the path, in order (a person's reopening of a failed
        // request may resume it where its tombstones are: the service checks they were written).
        if (reopened) return;
        const onPath = visited.filter((s): s is (typeof ERASURE_STAGES)[number] =>
          (ERASURE_STAGES as readonly string[]).includes(s),
        );
        expect([...new Set(onPath)]).toEqual(ERASURE_STAGES.slice(0, new Set(onPath).size));
      }),
      { numRuns: 500 },
    );
  });
});
