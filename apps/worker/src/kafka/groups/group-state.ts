import { randomUUID } from "node:crypto";
import { ErrorCode } from "@lastword/kafka-protocol";
import { type Clock, systemClock } from "@lastword/logstore";

/**
 * One consumer group's classic-protocol membership, in the coordinator's memory (Kafka's
 * GroupMetadata + the join/sync/heartbeat half of GroupCoordinator, as kfake models it):
 * Empty → PreparingRebalance → CompletingRebalance → Stable, and Dead once deleted or moved away.
 * A rebalance waits for every known member to rejoin (or the rebalance timeout), then answers all
 * JoinGroups at once (the leader gets everyone's metadata); SyncGroup waits for the leader's
 * assignments. Members that stop heartbeating expire after their session timeout.
 *
 * Static members (KIP-345, `group.instance.id`) keep their place across restarts: a JoinGroup with
 * a known instance id and no member id takes over the old member's entry under a new member id,
 * without a rebalance when the group is Stable and the member's protocols are unchanged; requests
 * still carrying the old member id with that instance id are FENCED_INSTANCE_ID. Their session
 * timeout expires them like any member (a static member does not send LeaveGroup on close).
 *
 * Time: every deadline (sessions, the rebalance timeout, unused member ids, the initial delay) is
 * a time on the injected clock; one real timer per group wakes it at the earliest and `runDue`
 * acts on what the clock says is due, so a test on a ManualClock moves the clock and calls it.
 *
 * Generations: a new generation is recorded (`recordGeneration`, the coordinator's lease row)
 * before any member is told it, and numbering starts after the last one recorded, so a group
 * whose coordinator moved never hands the same generation out twice.
 */
export type GroupStateName = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable" | "Dead";

export interface GroupTimings {
  /** group.initial.rebalance.delay.ms: how long the first rebalance of an Empty group waits for more joins. */
  initialRebalanceDelayMs: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
}

export interface GroupStateOptions {
  /** What deadlines are read from; the system clock by default. */
  clock?: Clock;
  /** The last generation this group's coordinators handed out: the next rebalance makes one more. */
  generationId?: number;
  /**
   * Makes a generation durable before its members hear of it: true once recorded; false (the
   * lease moved, or the write failed) and the group dies with NOT_COORDINATOR instead.
   */
  recordGeneration?: (generationId: number) => Promise<boolean>;
}

export interface JoinInput {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: { name: string; metadata: Buffer }[];
  /** JoinGroup v4+: a member without an id is given one and asked to rejoin with it. */
  requireKnownMemberId: boolean;
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

/** A member is what it joined with (the group keeps one protocol type) plus its place in the rebalance. */
interface Member extends Omit<JoinInput, "protocolType" | "requireKnownMemberId"> {
  assignment: Buffer;
  awaitingJoin: ((result: JoinResult) => void) | null;
  awaitingSync: ((result: SyncResult) => void) | null;
  /** When the member expires unless it is heard from (clock ms); null while its JoinGroup is open. */
  sessionDeadline: number | null;
}

const EMPTY: Buffer = Buffer.alloc(0);

export class GroupState {
  readonly groupId: string;
  readonly #timings: GroupTimings;
  readonly #clock: Clock;
  readonly #recordGeneration: (generationId: number) => Promise<boolean>;
  state: GroupStateName = "Empty";
  generationId: number;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly #members = new Map<string, Member>();
  /** Ids handed out with MEMBER_ID_REQUIRED → when they expire if never used (clock ms). */
  readonly #pending = new Map<string, number>();
  /** Static members: group.instance.id → the member id that holds it now. */
  readonly #static = new Map<string, string>();
  /** When a rebalance in PreparingRebalance completes without the members still missing (clock ms). */
  #rebalanceDeadline: number | null = null;
  /** While the first rebalance of an Empty group waits for more members, it does not complete early. */
  #initialDelayUntil = 0;
  /** The real timer that wakes the group at its earliest deadline, and that deadline. */
  #timer: NodeJS.Timeout | null = null;
  #timerAt = 0;
  /** Whether the current generation is recorded; successful JoinGroup answers wait for it. */
  #recorded: Promise<boolean> = Promise.resolve(true);
  /** What members are told once the group is dead. */
  #deathCode: number = ErrorCode.NOT_COORDINATOR;

  constructor(groupId: string, timings: GroupTimings, options: GroupStateOptions = {}) {
    this.groupId = groupId;
    this.#timings = timings;
    this.#clock = options.clock ?? systemClock;
    this.generationId = options.generationId ?? 0;
    this.#recordGeneration = options.recordGeneration ?? (() => Promise.resolve(true));
  }

  get memberCount(): number {
    return this.#members.size;
  }

  /** No members and no MEMBER_ID_REQUIRED id outstanding: nothing would notice the group going away. */
  get idle(): boolean {
    return this.#members.size === 0 && this.#pending.size === 0;
  }

  /** A member id handed out with MEMBER_ID_REQUIRED and not yet used to join. */
  isPending(memberId: string): boolean {
    return this.#pending.has(memberId);
  }

  hasMember(memberId: string): boolean {
    return this.#members.has(memberId);
  }

  members(): readonly Readonly<Member>[] {
    return [...this.#members.values()];
  }

  /** The chosen protocol's metadata of a member (DescribeGroups). */
  metadataOf(member: Readonly<Member>): Buffer {
    return member.protocols.find((p) => p.name === this.protocolName)?.metadata ?? EMPTY;
  }

  join(input: JoinInput): Promise<JoinResult> {
    const refuse = (errorCode: number, memberId = input.memberId) =>
      Promise.resolve(this.#joinAnswer(errorCode, memberId, []));
    if (this.state === "Dead") return refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const { minSessionTimeoutMs, maxSessionTimeoutMs } = this.#timings;
    if (input.sessionTimeoutMs < minSessionTimeoutMs || input.sessionTimeoutMs > maxSessionTimeoutMs) {
      return refuse(ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    if (input.protocolType === "" || input.protocols.length === 0 || !this.#supports(input)) {
      return refuse(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    if (input.groupInstanceId !== null) return this.#staticJoin(input, input.groupInstanceId);
    if (input.memberId === "") {
      const memberId = this.#newMemberId(input);
      if (input.requireKnownMemberId) {
        const expiresAt = this.#clock.now() + input.sessionTimeoutMs;
        this.#pending.set(memberId, expiresAt);
        this.#wakeAt(expiresAt);
        return refuse(ErrorCode.MEMBER_ID_REQUIRED, memberId);
      }
      return this.#addMember(memberId, input);
    }
    if (this.#pending.delete(input.memberId)) return this.#addMember(input.memberId, input);
    const member = this.#members.get(input.memberId);
    if (!member) return refuse(ErrorCode.UNKNOWN_MEMBER_ID);
    return this.#rejoin(member, input);
  }

  sync(
    memberId: string,
    generationId: number,
    assignments: { memberId: string; assignment: Buffer }[],
    groupInstanceId: string | null = null,
  ) {
    const answer = (errorCode: number, assignment: Buffer = EMPTY): Promise<SyncResult> =>
      Promise.resolve({
        errorCode,
        protocolType: this.protocolType,
        protocolName: this.protocolName,
        assignment,
      });
    if (this.#fenced(memberId, groupInstanceId)) return answer(ErrorCode.FENCED_INSTANCE_ID);
    const member = this.#members.get(memberId);
    if (!member) return answer(ErrorCode.UNKNOWN_MEMBER_ID);
    if (generationId !== this.generationId) return answer(ErrorCode.ILLEGAL_GENERATION);
    if (this.state === "PreparingRebalance") return answer(ErrorCode.REBALANCE_IN_PROGRESS);
    if (this.state === "Stable") return answer(0, member.assignment);
    if (this.state !== "CompletingRebalance") return answer(ErrorCode.UNKNOWN_MEMBER_ID);
    this.#touch(member);
    const result = new Promise<SyncResult>((resolve) => {
      member.awaitingSync = resolve;
    });
    if (memberId === this.leaderId) {
      const given = new Map(assignments.map((a) => [a.memberId, a.assignment]));
      for (const m of this.#members.values()) m.assignment = given.get(m.memberId) ?? EMPTY;
      this.state = "Stable";
      for (const m of this.#members.values()) {
        const resolve = m.awaitingSync;
        m.awaitingSync = null;
        resolve?.({
          errorCode: 0,
          protocolType: this.protocolType,
          protocolName: this.protocolName,
          assignment: m.assignment,
        });
      }
    }
    return result;
  }

  heartbeat(memberId: string, generationId: number, groupInstanceId: string | null = null): number {
    if (this.#fenced(memberId, groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    const member = this.#members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== this.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.#touch(member);
    // The member learns of the rebalance here and rejoins.
    if (this.state === "PreparingRebalance") return ErrorCode.REBALANCE_IN_PROGRESS;
    return 0;
  }

  /**
   * LeaveGroup for one member: 0, UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID. With an instance id
   * (v3+) the static member leaves; an empty member id then means "whoever holds it now" (what
   * an admin's removeMembers sends).
   */
  leave(memberId: string, groupInstanceId: string | null = null): number {
    if (groupInstanceId !== null) {
      const holder = this.#static.get(groupInstanceId);
      if (holder === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (memberId !== "" && memberId !== holder) return ErrorCode.FENCED_INSTANCE_ID;
      memberId = holder;
    }
    if (this.#pending.delete(memberId)) {
      this.#maybeCompleteJoin();
      return 0;
    }
    const member = this.#members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.#remove(member, ErrorCode.UNKNOWN_MEMBER_ID);
    return 0;
  }

  /**
   * A member's commit check (OffsetCommit): 0 when it may commit. An admin commit (empty member id,
   * generation -1) is allowed only while the group has no members, as Kafka's.
   */
  commitCheck(memberId: string, generationId: number, groupInstanceId: string | null = null): number {
    if (generationId < 0 && memberId === "" && this.state === "Empty") return 0;
    if (this.#fenced(memberId, groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    if (this.state === "CompletingRebalance") return ErrorCode.REBALANCE_IN_PROGRESS;
    if (!this.#members.has(memberId)) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== this.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.#touch(this.#members.get(memberId)!);
    return 0;
  }

  /**
   * Acts on every deadline the clock has passed, earliest first: a rebalance timeout completes the
   * rebalance without the members still missing, an unused member id lapses, a member whose
   * session ran out leaves. The group's timer calls it; so does a test that moved a ManualClock.
   */
  runDue(): void {
    const now = this.#clock.now();
    for (let due = this.#earliest(); due !== null && due.at <= now; due = this.#earliest()) due.run();
    this.#wakeAt(this.#earliest()?.at ?? null, true);
  }

  /** The group is deleted or its coordinator moved: every waiting member is told to look again. */
  kill(errorCode: number = ErrorCode.NOT_COORDINATOR): void {
    this.state = "Dead";
    this.#deathCode = errorCode;
    this.#rebalanceDeadline = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending.clear();
    this.#static.clear();
    for (const m of this.#members.values()) {
      m.awaitingJoin?.(this.#joinAnswer(errorCode, m.memberId, []));
      m.awaitingSync?.({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    }
    this.#members.clear();
  }

  /** The earliest deadline and what to do at it (each action clears the deadline it acts on). */
  #earliest(): { at: number; run: () => void } | null {
    let next: { at: number; run: () => void } | null = null;
    const consider = (at: number, run: () => void) => {
      if (next === null || at < next.at) next = { at, run };
    };
    if (this.#rebalanceDeadline !== null) {
      consider(this.#rebalanceDeadline, () => {
        this.#rebalanceDeadline = null;
        this.#completeJoin();
      });
    }
    for (const [memberId, at] of this.#pending) consider(at, () => this.#expirePending(memberId));
    for (const m of this.#members.values()) {
      if (m.sessionDeadline === null) continue;
      consider(m.sessionDeadline, () => {
        m.sessionDeadline = null;
        this.#expire(m);
      });
    }
    return next;
  }

  /**
   * Makes sure the timer wakes the group by `at`. A deadline that only moved later (a heartbeat)
   * needs no new timer: the earlier wake-up finds nothing due and sets the next one.
   */
  #wakeAt(at: number | null, replace = false): void {
    if (!replace && this.#timer && this.#timerAt <= (at ?? Number.POSITIVE_INFINITY)) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (at === null || this.state === "Dead") return;
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.runDue();
      },
      Math.max(0, at - this.#clock.now()),
    );
    this.#timer.unref();
  }

  #newMemberId(input: JoinInput): string {
    return `${input.groupInstanceId || input.clientId || "member"}-${randomUUID()}`;
  }

  /** A request naming a static member's instance id under a member id that no longer holds it. */
  #fenced(memberId: string, groupInstanceId: string | null): boolean {
    if (groupInstanceId === null) return false;
    const holder = this.#static.get(groupInstanceId);
    return holder !== undefined && holder !== memberId;
  }

  /** JoinGroup with a group.instance.id: a static member needs no MEMBER_ID_REQUIRED round trip. */
  #staticJoin(input: JoinInput, instanceId: string): Promise<JoinResult> {
    const holder = this.#static.get(instanceId);
    if (input.memberId === "") {
      const memberId = this.#newMemberId(input);
      const old = holder === undefined ? undefined : this.#members.get(holder);
      return old ? this.#replaceStatic(old, memberId, input) : this.#addMember(memberId, input);
    }
    if (holder !== undefined && holder !== input.memberId) {
      return Promise.resolve(this.#joinAnswer(ErrorCode.FENCED_INSTANCE_ID, input.memberId, []));
    }
    const member = this.#members.get(input.memberId);
    if (!member) return Promise.resolve(this.#joinAnswer(ErrorCode.UNKNOWN_MEMBER_ID, input.memberId, []));
    return this.#rejoin(member, input);
  }

  /**
   * A restarted static member takes over its old entry (and assignment) under a new member id; the
   * old id's open requests are answered FENCED_INSTANCE_ID. Nothing changed and Stable: the group
   * keeps its generation and assignments (the leader gets the member list back, and its SyncGroup
   * in Stable returns the stored assignment); otherwise a rebalance follows.
   */
  #replaceStatic(old: Member, memberId: string, input: JoinInput): Promise<JoinResult> {
    const same = sameProtocols(old.protocols, input.protocols);
    old.awaitingJoin?.(this.#joinAnswer(ErrorCode.FENCED_INSTANCE_ID, old.memberId, []));
    old.awaitingSync?.({
      errorCode: ErrorCode.FENCED_INSTANCE_ID,
      protocolType: null,
      protocolName: null,
      assignment: EMPTY,
    });
    this.#members.delete(old.memberId);
    const member: Member = {
      ...old,
      memberId,
      clientId: input.clientId,
      clientHost: input.clientHost,
      sessionTimeoutMs: input.sessionTimeoutMs,
      rebalanceTimeoutMs: input.rebalanceTimeoutMs > 0 ? input.rebalanceTimeoutMs : old.rebalanceTimeoutMs,
      protocols: input.protocols,
      awaitingJoin: null,
      awaitingSync: null,
      sessionDeadline: null,
    };
    this.#members.set(memberId, member);
    this.#static.set(member.groupInstanceId!, memberId);
    if (this.leaderId === old.memberId) this.leaderId = memberId;
    if (same && this.state === "Stable") {
      this.#touch(member);
      return this.#joined(memberId, memberId === this.leaderId ? this.#everyone() : []);
    }
    const result = this.#awaitJoin(member);
    this.#prepareRebalance();
    this.#maybeCompleteJoin();
    return result;
  }

  #everyone(): JoinResult["members"] {
    return [...this.#members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: this.metadataOf(m),
    }));
  }

  #supports(input: JoinInput): boolean {
    if (this.#members.size === 0) return true;
    if (input.protocolType !== this.protocolType) return false;
    return input.protocols.some((p) => this.#candidates().has(p.name));
  }

  /** Protocols every current member supports. */
  #candidates(): Set<string> {
    let common = null as Set<string> | null;
    for (const m of this.#members.values()) {
      const names = new Set(m.protocols.map((p) => p.name));
      common = common === null ? names : new Set([...common].filter((n) => names.has(n)));
    }
    return common ?? new Set();
  }

  #addMember(memberId: string, input: JoinInput): Promise<JoinResult> {
    if (this.#members.size === 0) this.protocolType = input.protocolType;
    const member: Member = {
      memberId,
      groupInstanceId: input.groupInstanceId,
      clientId: input.clientId,
      clientHost: input.clientHost,
      sessionTimeoutMs: input.sessionTimeoutMs,
      rebalanceTimeoutMs: input.rebalanceTimeoutMs > 0 ? input.rebalanceTimeoutMs : input.sessionTimeoutMs,
      protocols: input.protocols,
      assignment: EMPTY,
      awaitingJoin: null,
      awaitingSync: null,
      sessionDeadline: null,
    };
    this.#members.set(memberId, member);
    if (member.groupInstanceId !== null) this.#static.set(member.groupInstanceId, memberId);
    const result = this.#awaitJoin(member);
    this.#prepareRebalance();
    this.#maybeCompleteJoin();
    return result;
  }

  #rejoin(member: Member, input: JoinInput): Promise<JoinResult> {
    const same = sameProtocols(member.protocols, input.protocols);
    member.protocols = input.protocols;
    member.sessionTimeoutMs = input.sessionTimeoutMs;
    if (input.rebalanceTimeoutMs > 0) member.rebalanceTimeoutMs = input.rebalanceTimeoutMs;
    // A follower rejoining with nothing changed gets the current generation back (Kafka does this).
    if (
      same &&
      member.memberId !== this.leaderId &&
      (this.state === "Stable" || this.state === "CompletingRebalance")
    ) {
      this.#touch(member);
      return this.#joined(member.memberId, []);
    }
    const result = this.#awaitJoin(member);
    if (this.state !== "PreparingRebalance") this.#prepareRebalance();
    this.#maybeCompleteJoin();
    return result;
  }

  #awaitJoin(member: Member): Promise<JoinResult> {
    member.sessionDeadline = null;
    // A second JoinGroup from the same member replaces the first, which is answered as superseded.
    member.awaitingJoin?.(this.#joinAnswer(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId, []));
    return new Promise<JoinResult>((resolve) => {
      member.awaitingJoin = resolve;
    });
  }

  #prepareRebalance(): void {
    if (this.state === "PreparingRebalance") return;
    if (this.state === "CompletingRebalance") {
      // The assignments being synced are void: members must join the next generation.
      for (const m of this.#members.values()) {
        m.assignment = EMPTY;
        const resolve = m.awaitingSync;
        m.awaitingSync = null;
        resolve?.({
          errorCode: ErrorCode.REBALANCE_IN_PROGRESS,
          protocolType: this.protocolType,
          protocolName: this.protocolName,
          assignment: EMPTY,
        });
      }
    }
    const initial = this.state === "Empty";
    this.state = "PreparingRebalance";
    const rebalanceTimeoutMs = Math.max(0, ...[...this.#members.values()].map((m) => m.rebalanceTimeoutMs));
    const delay = initial
      ? Math.min(this.#timings.initialRebalanceDelayMs, rebalanceTimeoutMs)
      : rebalanceTimeoutMs;
    const now = this.#clock.now();
    this.#rebalanceDeadline = now + delay;
    this.#initialDelayUntil = initial ? now + delay : 0;
    this.#wakeAt(this.#rebalanceDeadline);
  }

  #maybeCompleteJoin(): void {
    if (this.state !== "PreparingRebalance") return;
    if (this.#clock.now() < this.#initialDelayUntil) return;
    const all = [...this.#members.values()].every((m) => m.awaitingJoin !== null);
    if (all && this.#pending.size === 0) this.#completeJoin();
  }

  #completeJoin(): void {
    if (this.state !== "PreparingRebalance") return;
    this.#rebalanceDeadline = null;
    this.#initialDelayUntil = 0;
    // Members that did not rejoin within the rebalance timeout are out.
    for (const m of [...this.#members.values()]) {
      if (!m.awaitingJoin) this.#drop(m);
    }
    this.generationId += 1;
    if (this.#members.size === 0) {
      this.state = "Empty";
      this.protocolName = null;
      this.leaderId = null;
      return;
    }
    if (!this.leaderId || !this.#members.has(this.leaderId))
      this.leaderId = this.#members.keys().next().value!;
    const leader = this.#members.get(this.leaderId)!;
    const candidates = this.#candidates();
    this.protocolName = leader.protocols.find((p) => candidates.has(p.name))!.name;
    this.state = "CompletingRebalance";
    const generationId = this.generationId;
    // A record that threw did not happen (the coordinator logs why).
    const attempt = this.#recordGeneration(generationId).catch(() => false);
    this.#recorded = attempt.then((recorded) => {
      if (!recorded && this.state !== "Dead" && this.generationId === generationId) this.kill();
      return recorded;
    });
    const everyone = this.#everyone();
    for (const m of this.#members.values()) {
      const resolve = m.awaitingJoin!;
      m.awaitingJoin = null;
      this.#touch(m);
      void this.#joined(m.memberId, m.memberId === this.leaderId ? everyone : []).then(resolve);
    }
  }

  /** A successful JoinGroup answer, sent once the generation it names is recorded. */
  #joined(memberId: string, members: JoinResult["members"]): Promise<JoinResult> {
    const answer = this.#joinAnswer(0, memberId, members);
    return this.#recorded.then((recorded) =>
      recorded ? answer : this.#joinAnswer(this.#deathCode, memberId, []),
    );
  }

  #joinAnswer(errorCode: number, memberId: string, members: JoinResult["members"]): JoinResult {
    const ok = errorCode === 0;
    return {
      errorCode,
      generationId: ok ? this.generationId : -1,
      protocolType: ok ? this.protocolType : null,
      protocolName: ok ? this.protocolName : null,
      leader: ok ? (this.leaderId ?? "") : "",
      memberId,
      members,
    };
  }

  /** Restarts a member's session (any request from it counts as alive). */
  #touch(member: Member): void {
    member.sessionDeadline = this.#clock.now() + member.sessionTimeoutMs;
    this.#wakeAt(member.sessionDeadline);
  }

  #expire(member: Member): void {
    if (this.#members.get(member.memberId) !== member) return;
    // A member parked in a JoinGroup is alive (its request is open).
    if (member.awaitingJoin) return;
    this.#remove(member, ErrorCode.UNKNOWN_MEMBER_ID);
  }

  #expirePending(memberId: string): void {
    if (!this.#pending.delete(memberId)) return;
    this.#maybeCompleteJoin();
  }

  #drop(member: Member): void {
    this.#members.delete(member.memberId);
    if (member.groupInstanceId !== null && this.#static.get(member.groupInstanceId) === member.memberId) {
      this.#static.delete(member.groupInstanceId);
    }
  }

  #remove(member: Member, errorCode: number): void {
    this.#drop(member);
    member.awaitingJoin?.(this.#joinAnswer(errorCode, member.memberId, []));
    member.awaitingSync?.({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    if (member.memberId === this.leaderId) this.leaderId = null;
    if (this.state === "Stable" || this.state === "CompletingRebalance") this.#prepareRebalance();
    this.#maybeCompleteJoin();
  }
}

type Protocols = readonly { name: string; metadata: Buffer }[];

function sameProtocols(a: Protocols, b: Protocols): boolean {
  return (
    a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.metadata.equals(b[i]!.metadata))
  );
}
