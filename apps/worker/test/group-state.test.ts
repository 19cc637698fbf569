import { ErrorCode } from "@lastword/kafka-protocol";
import { describe, expect, it } from "vitest";
import { GroupState, type JoinInput } from "../src/kafka/groups/group-state";

// The classic group state machine on its own, with real timers and small timeouts.

const timings = { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 50, maxSessionTimeoutMs: 60_000 };
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
    const g = new GroupState("g", timings);
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
    const g = new GroupState("g", timings);
    await g.join(input("", proto("range")));
    expect((await g.join(input("", proto("sticky")))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await g.join(input("", proto("range"), { sessionTimeoutMs: 10 }))).errorCode).toBe(
      ErrorCode.INVALID_SESSION_TIMEOUT,
    );
  });

  it("a member that does not rejoin within the rebalance timeout is dropped; one that stops heartbeating expires", async () => {
    const g = new GroupState("g", timings);
    // a's session outlives the rebalance timeout: the rebalance timeout is what drops it.
    const a = await g.join(input("", proto("range"), { sessionTimeoutMs: 5_000 }));
    await g.sync(a.memberId, 1, [{ memberId: a.memberId, assignment: Buffer.from("x") }]);
    const b = await g.join(input(""));
    expect(b).toMatchObject({ errorCode: 0, generationId: 2, leader: b.memberId });
    expect(b.members.map((m) => m.memberId)).toEqual([b.memberId]);
    expect(g.hasMember(a.memberId)).toBe(false);
    expect(g.memberCount).toBe(1);
    // b never syncs nor heartbeats: after its session timeout the group is Empty again.
    await expect.poll(() => g.state, { timeout: 2_000 }).toBe("Empty");
    expect(g.generationId).toBe(3);
  });

  it("MEMBER_ID_REQUIRED hands out an id that expires unused after the session timeout", async () => {
    const g = new GroupState("g", timings);
    const first = await g.join(input("", proto("range"), { requireKnownMemberId: true }));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(g.isPending(first.memberId)).toBe(true);
    await expect.poll(() => g.isPending(first.memberId), { timeout: 2_000 }).toBe(false);
    expect((await g.join(input(first.memberId))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("commits: an admin commit only while Empty, REBALANCE_IN_PROGRESS while completing, the generation checked", async () => {
    const g = new GroupState("g", timings);
    expect(g.commitCheck("", -1)).toBe(0);
    const a = await g.join(input(""));
    expect(g.commitCheck(a.memberId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await g.sync(a.memberId, 1, []);
    expect(g.commitCheck("", -1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.commitCheck(a.memberId, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(g.commitCheck(a.memberId, 1)).toBe(0);
  });
});
