import { ErrorCode } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import { GroupState, type GroupStateOptions, type JoinInput } from "../src/kafka/groups/group-state";

// The classic group state machine on its own. Time is a ManualClock: a test moves it and calls
// runDue, as the group's own timer does when a deadline comes.

const timings = { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 50, maxSessionTimeoutMs: 60_000 };
const group = (options: GroupStateOptions = {}, t = timings) => {
  const clock = new ManualClock(1_000_000);
  const g = new GroupState("g", t, { clock, ...options });
  /** Moves the clock and lets the group act on what came due. */
  const pass = (ms: number) => {
    clock.advance(ms);
    g.runDue();
  };
  return { g, pass };
};
const proto = (...names: string[]) => names.map((name) => ({ name, metadata: Buffer.from(name) }));
const input = (
  memberId: string,
  protocols = proto("range"),
  overrides: Partial<JoinInput> = {},
): JoinInput => ({
  memberId,
  groupInstanceId: null,
  clientId: "c",
  clientHost: "127.0.0.1",
  sessionTimeoutMs: 200,
  rebalanceTimeoutMs: 300,
  protocolType: "consumer",
  protocols,
  requireKnownMemberId: false,
  ...overrides,
});

describe("GroupState", () => {
  it("votes the leader's first protocol that every member supports, and gives the leader everyone's metadata", async () => {
    const { g } = group();
    const a = await g.join(input("", proto("sticky", "roundrobin", "range")));
    expect(a).toMatchObject({ errorCode: 0, generationId: 1, protocolName: "sticky", leader: a.memberId });
    const bJoin = g.join(input("", proto("range", "roundrobin")));
    expect(g.state).toBe("PreparingRebalance");
    const aAgain = await g.join(input(a.memberId, proto("sticky", "roundrobin", "range")));
    const b = await bJoin;
    expect(aAgain).toMatchObject({
      errorCode: 0,
      generationId: 2,
      protocolName: "roundrobin",
      leader: a.memberId,
    });
    expect(aAgain.members.map((m) => [m.memberId, m.metadata.toString()])).toEqual([
      [a.memberId, "roundrobin"],
      [b.memberId, "roundrobin"],
    ]);
    expect(b.members).toEqual([]);
    expect(g.state).toBe("CompletingRebalance");
  });

  it("refuses a member sharing no protocol with the group (INCONSISTENT_GROUP_PROTOCOL) and a bad session timeout", async () => {
    const { g } = group();
    await g.join(input("", proto("range")));
    expect((await g.join(input("", proto("sticky")))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await g.join(input("", proto("range"), { sessionTimeoutMs: 10 }))).errorCode).toBe(
      ErrorCode.INVALID_SESSION_TIMEOUT,
    );
  });

  it("a member that does not rejoin within the rebalance timeout is dropped; one that stops heartbeating expires", async () => {
    const { g, pass } = group();
    // a's session outlives the rebalance timeout: the rebalance timeout is what drops it.
    const a = await g.join(input("", proto("range"), { sessionTimeoutMs: 5_000 }));
    await g.sync(a.memberId, 1, [{ memberId: a.memberId, assignment: Buffer.from("x") }]);
    const bJoin = g.join(input(""));
    pass(299);
    expect(g.state).toBe("PreparingRebalance");
    pass(1);
    const b = await bJoin;
    expect(b).toMatchObject({ errorCode: 0, generationId: 2, leader: b.memberId });
    expect(b.members.map((m) => m.memberId)).toEqual([b.memberId]);
    expect(g.hasMember(a.memberId)).toBe(false);
    expect(g.memberCount).toBe(1);
    // b never syncs nor heartbeats: after its session timeout (200 ms) the group is Empty again.
    pass(199);
    expect(g.memberCount).toBe(1);
    pass(1);
    expect(g.state).toBe("Empty");
    expect(g.generationId).toBe(3);
  });

  it("a heartbeat restarts the session: the member expires a session timeout after the last one", async () => {
    const { g, pass } = group();
    const a = await g.join(input(""));
    await g.sync(a.memberId, 1, []);
    pass(150);
    expect(g.heartbeat(a.memberId, 1)).toBe(0);
    pass(150);
    expect(g.hasMember(a.memberId)).toBe(true);
    pass(50);
    expect(g.hasMember(a.memberId)).toBe(false);
    expect(g.state).toBe("Empty");
  });

  it("MEMBER_ID_REQUIRED hands out an id that expires unused after the session timeout", async () => {
    const { g, pass } = group();
    const first = await g.join(input("", proto("range"), { requireKnownMemberId: true }));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(g.isPending(first.memberId)).toBe(true);
    pass(199);
    expect(g.isPending(first.memberId)).toBe(true);
    pass(1);
    expect(g.isPending(first.memberId)).toBe(false);
    expect((await g.join(input(first.memberId))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("the first rebalance of an Empty group waits group.initial.rebalance.delay.ms for more members", async () => {
    const { g, pass } = group({}, { ...timings, initialRebalanceDelayMs: 100 });
    let settled = false;
    const aJoin = g.join(input("")).finally(() => {
      settled = true;
    });
    pass(99);
    await Promise.resolve();
    expect([g.state, settled]).toEqual(["PreparingRebalance", false]);
    const bJoin = g.join(input(""));
    pass(1);
    const [a, b] = await Promise.all([aJoin, bJoin]);
    expect([a.generationId, b.generationId]).toEqual([1, 1]);
    expect(g.memberCount).toBe(2);
  });

  it("records each generation before any member hears of it, numbering after the last one recorded", async () => {
    const recorded: number[] = [];
    let release = () => {};
    const { g } = group({
      generationId: 7,
      recordGeneration: (generationId) =>
        new Promise((resolve) => {
          release = () => {
            recorded.push(generationId);
            resolve(true);
          };
        }),
    });
    let answered = false;
    const join = g.join(input("")).then((answer) => {
      answered = true;
      return answer;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect([g.state, answered, recorded]).toEqual(["CompletingRebalance", false, []]);
    release();
    expect(await join).toMatchObject({ errorCode: 0, generationId: 8 });
    expect(recorded).toEqual([8]);
  });

  it("a generation that cannot be recorded (the lease moved) is never handed out: the group dies with NOT_COORDINATOR", async () => {
    const { g } = group({ generationId: 3, recordGeneration: () => Promise.resolve(false) });
    const answer = await g.join(input(""));
    expect(answer).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, generationId: -1 });
    expect(g.state).toBe("Dead");
    const failing = group({ recordGeneration: () => Promise.reject(new Error("database down")) });
    expect((await failing.g.join(input(""))).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it("commits: an admin commit only while Empty, REBALANCE_IN_PROGRESS while completing, the generation checked", async () => {
    const { g } = group();
    expect(g.commitCheck("", -1)).toBe(0);
    const a = await g.join(input(""));
    expect(g.commitCheck(a.memberId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await g.sync(a.memberId, 1, []);
    expect(g.commitCheck("", -1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.commitCheck(a.memberId, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(g.commitCheck(a.memberId, 1)).toBe(0);
  });
});
