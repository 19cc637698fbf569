import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { expandScopes, isRole, permissionsToScopes, scopesOfRole } from "../src/auth/scopes";
import { ROLES, type Role, SCOPES, type Scope } from "../src/index";
import { createTenantForUser } from "../src/services/tenant.service";
import { type Caller, invitationFromLink, type Session, signUp, trpc, useHarness } from "./api-harness";

// Random sequences of grants by random actors, through tRPC against the real services and database:
// after every accepted step, whatever was handed out is within what its granter held at that moment.

interface Rights {
  role: Role | null;
  scopes: Scope[];
}

/** The model of the rule, independent of auth/grant-rule.ts: rights as sets, `admin` as all. */
function within(granter: Rights, grant: { role?: Role | null; scopes: readonly Scope[] }): boolean {
  if (grant.role === "owner" && granter.role !== "owner") return false;
  const held = expandScopes(granter.scopes);
  return expandScopes(grant.scopes).every((scope) => held.includes(scope));
}

function rightsOfRole(role: Role): Rights {
  return { role, scopes: scopesOfRole(role) };
}

const ASSIGNABLE = ROLES.filter((r) => r !== "owner");
const POOL = 5;
const GRANTING: Scope[] = ["keys:write", "members:write"];

type Step =
  | { kind: "invite"; actor: number; person: number; role: Role }
  | { kind: "accept"; invitation: number }
  | { kind: "changeRole"; actor: number; target: number; role: Role }
  | { kind: "remove"; actor: number; target: number }
  | { kind: "createKey"; actor: number; scopes: Scope[] }
  | { kind: "revokeKey"; actor: number; key: number };

const index = fc.nat({ max: 20 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("invite"),
    actor: index,
    person: index,
    role: fc.constantFrom(...ASSIGNABLE),
  }),
  fc.record({ kind: fc.constant("accept"), invitation: index }),
  fc.record({
    kind: fc.constant("changeRole"),
    actor: index,
    target: index,
    role: fc.constantFrom(...ASSIGNABLE),
  }),
  fc.record({ kind: fc.constant("remove"), actor: index, target: index }),
  fc.record({
    kind: fc.constant("createKey"),
    actor: index,
    // The two scopes that let a key grant at all are drawn more often, so keys get to act.
    scopes: fc.uniqueArray(fc.constantFrom(...SCOPES, ...GRANTING, ...GRANTING), {
      minLength: 1,
      maxLength: 5,
    }),
  }),
  fc.record({ kind: fc.constant("revokeKey"), actor: index, key: index }),
) as fc.Arbitrary<Step>;

const h = useHarness("grant_sequences");
let people: { session: Session; email: string }[];
const accepted = { grants: 0, refusals: 0 };

beforeAll(async () => {
  people = [];
  for (let i = 0; i < POOL; i++) {
    const email = `person${i}@example.com`;
    people.push({ session: await signUp(h.server, email, `Person ${i}`), email });
  }
});

/** One run: a fresh tenant owned by person 0, its actors (members and live keys) read from the database. */
class Run {
  readonly secrets = new Map<string, string>();
  readonly invitations = new Map<string, { invitationId: string; token: string; granter: Rights }>();
  constructor(readonly tenantId: string) {}

  async members() {
    const rows = await h.db.prisma.member.findMany({
      where: { organizationId: this.tenantId },
      orderBy: { id: "asc" },
    });
    return rows.map((m) => ({ id: m.id, userId: m.userId, role: isRole(m.role) ? m.role : null }));
  }

  async keys() {
    const rows = await h.db.prisma.apiKey.findMany({
      where: { referenceId: this.tenantId },
      orderBy: { id: "asc" },
    });
    return rows.map((k) => ({
      id: k.id,
      enabled: k.enabled !== false,
      scopes: permissionsToScopes(k.permissions ? JSON.parse(k.permissions) : null),
    }));
  }

  /** Members act through their session (made active in this tenant), live keys through their secret. */
  async actor(n: number): Promise<{ caller: Caller; rights: Rights } | null> {
    const members = await this.members();
    const keys = (await this.keys()).filter((k) => k.enabled && this.secrets.has(k.id));
    const all = members.length + keys.length;
    const i = n % all;
    const member = members[i];
    if (member) {
      const person = people.find((p) => p.session.userId === member.userId)!;
      return member.role
        ? { caller: { cookie: person.session.cookie }, rights: rightsOfRole(member.role) }
        : null;
    }
    const key = keys[i - members.length]!;
    return { caller: { apiKey: this.secrets.get(key.id)! }, rights: { role: null, scopes: key.scopes } };
  }
}

async function perform(run: Run, s: Step): Promise<void> {
  const pick = <T>(list: T[], n: number) => list[n % list.length];
  if (s.kind === "accept") {
    const pending = [...run.invitations.entries()];
    if (pending.length === 0) return;
    const [email, invitation] = pick(pending, s.invitation)!;
    const person = people.find((p) => p.email === email)!;
    const answer = await trpc(h.server, { cookie: person.session.cookie }, "mutation", "invitations.accept", {
      invitationId: invitation.invitationId,
      token: invitation.token,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
    if (answer.status !== 200) return void accepted.refusals++;
    accepted.grants++;
    run.invitations.delete(email);
    const role = (answer.body.result!.data as { role: Role }).role;
    expect(within(invitation.granter, { role, scopes: scopesOfRole(role) }), `accept ${role}`).toBe(true);
    return;
  }
  const actor = await run.actor(s.actor);
  if (!actor) return;
  const { caller, rights } = actor;
  const call = async (path: string, input: unknown) => {
    const answer = await trpc(h.server, caller, "mutation", path, input);
    expect(answer.status, `${path} ${JSON.stringify(answer.body)}`).toBeLessThan(500);
    if (answer.status === 200) accepted.grants++;
    else accepted.refusals++;
    return answer.status === 200 ? (answer.body.result!.data as Record<string, unknown>) : null;
  };
  switch (s.kind) {
    case "invite": {
      const person = pick(people, s.person)!;
      const done = await call("members.invite", { email: person.email, role: s.role });
      if (!done) return;
      expect(within(rights, { role: s.role, scopes: scopesOfRole(s.role) }), `invite ${s.role}`).toBe(true);
      run.invitations.set(person.email, { ...invitationFromLink(done.link as string), granter: rights });
      return;
    }
    case "changeRole":
    case "remove": {
      const target = pick(await run.members(), s.target)!;
      const done =
        s.kind === "remove"
          ? await call("members.remove", { memberId: target.id })
          : await call("members.changeRole", { memberId: target.id, role: s.role });
      if (!done) return;
      expect(target.role && within(rights, rightsOfRole(target.role)), `${s.kind} of ${target.role}`).toBe(
        true,
      );
      if (s.kind === "changeRole") expect(within(rights, rightsOfRole(s.role)), `make ${s.role}`).toBe(true);
      return;
    }
    case "createKey": {
      const done = await call("apiKeys.create", { name: "k", scopes: s.scopes });
      if (!done) return;
      run.secrets.set(done.id as string, done.key as string);
      const stored = (await run.keys()).find((k) => k.id === done.id)!;
      expect(within(rights, { scopes: stored.scopes }), `key ${stored.scopes.join(",")}`).toBe(true);
      return;
    }
    case "revokeKey": {
      const key = pick(await run.keys(), s.key);
      if (!key) return;
      const done = await call("apiKeys.revoke", { id: key.id });
      if (done) expect(within(rights, { scopes: key.scopes }), `revoke ${key.scopes.join(",")}`).toBe(true);
    }
  }
}

describe("grants over random sequences", () => {
  it("no key or member ends up with a role or scope above the one that granted it; only the owner is owner", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 16 }), async (steps) => {
        const { organizationId } = await createTenantForUser(h.db.prisma, {
          userId: people[0]!.session.userId,
          name: `Run ${++runs}`,
          now: new Date(),
        });
        // Every session acts in this run's tenant; a person not yet a member there is no actor.
        await h.db.prisma.session.updateMany({
          where: { userId: { in: people.map((p) => p.session.userId) } },
          data: { activeOrganizationId: organizationId },
        });
        const run = new Run(organizationId);
        for (const s of steps) await perform(run, s);
        const owners = (await run.members()).filter((m) => m.role === "owner");
        expect(owners.map((m) => m.userId)).toEqual([people[0]!.session.userId]);
      }),
      { numRuns: 30 },
    );
    // The property is not vacuous: grants were made and refused.
    expect(accepted.grants).toBeGreaterThan(20);
    expect(accepted.refusals).toBeGreaterThan(5);
  }, 120_000);
});
