import { ManualClock } from "@lastword/logstore";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY_SCOPES } from "../src/index";
import { INVITATION_TTL_MS } from "../src/services/invitation.service";
import { acceptInvitation, invite, rest, type Session, signUp, trpc, useHarness } from "./api-harness";

// Console depth on the real database: a new key reads only and records when it was last used
// (to the minute, on the injected clock); invitations are one per address and revocable; a
// topic's config history comes from the audit chain with who, when and the diff.

const clock = new ManualClock();
const h = useHarness("keys_members_configs", { clock });
let owner: Session;
let tenantId: string;
let developer: Session;

type Data = Record<string, unknown>;
const data = (res: { body: { result?: { data: unknown } } }) => res.body.result!.data as Data;

async function createKey(caller: { cookie?: string; apiKey?: string }, input: Data) {
  return trpc(h.server, caller, "mutation", "apiKeys.create", input);
}

async function listedKey(id: string) {
  const listed = await trpc(h.server, { cookie: owner.cookie }, "query", "apiKeys.list");
  return (data(listed).apiKeys as { id: string; scopes: string[]; lastUsedAt: string | null }[]).find(
    (k) => k.id === id,
  );
}

async function pendingInvitations() {
  const listed = await trpc(h.server, { cookie: owner.cookie }, "query", "members.list");
  return data(listed).invitations as { id: string; email: string; role: string }[];
}

beforeAll(async () => {
  owner = await signUp(h.server, "owner@keys.example", "Owner");
  tenantId = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } })).organizationId;
  const invitation = await invite(h.server, { cookie: owner.cookie }, "dev@keys.example", "developer");
  developer = await signUp(h.server, "dev@keys.example", "Dev");
  expect((await acceptInvitation(h.server, developer, invitation)).status).toBe(200);
});

describe("API keys", () => {
  it("a key created without scopes reads only: it lists topics but cannot create one or produce", async () => {
    const created = await createKey({ cookie: owner.cookie }, { name: "reader" });
    expect(created.status).toBe(200);
    const { key, scopes } = data(created) as { key: string; scopes: string[] };
    expect(scopes).toEqual([...DEFAULT_API_KEY_SCOPES]);
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    const create = await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "nope", partitions: 1 });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe("INSUFFICIENT_SCOPE");
    expect(await h.db.prisma.topic.count({ where: { organizationId: tenantId, name: "nope" } })).toBe(0);
  });

  it("grants write scopes only when named, and never above the creator's own", async () => {
    const writer = await createKey(
      { cookie: developer.cookie },
      { name: "writer", scopes: ["records:write"] },
    );
    expect(data(writer).scopes).toEqual(["records:write"]);
    const before = await h.db.prisma.apiKey.count({ where: { referenceId: tenantId } });
    const above = await createKey(
      { cookie: developer.cookie },
      { name: "too-much", scopes: ["members:write"] },
    );
    expect(above.status).toBe(403);
    expect(JSON.stringify(above.body)).toContain("members:write");
    const admin = await createKey({ cookie: developer.cookie }, { name: "admin", scopes: ["admin"] });
    expect(admin.status).toBe(403);
    expect(await h.db.prisma.apiKey.count({ where: { referenceId: tenantId } })).toBe(before);
    // Every scope the API defines is grantable by someone who holds it.
    const everything = await createKey(
      { cookie: owner.cookie },
      { name: "all", scopes: ["members:write", "erasure:write", "erasure:read", "members:read"] },
    );
    expect(everything.status).toBe(200);
    // A key holding none of the defaults must name what the new key gets.
    const { key: keyMaker } = data(
      await createKey({ cookie: owner.cookie }, { name: "key-maker", scopes: ["keys:write"] }),
    ) as { key: string };
    const unnamed = await createKey({ apiKey: keyMaker }, { name: "nothing" });
    expect(unnamed.status).toBe(400);
    expect(JSON.stringify(unnamed.body)).toContain("Name the key's scopes");
  });

  it("records when a key was last used, to the minute, without a write per request", async () => {
    const created = await createKey({ cookie: owner.cookie }, { name: "used" });
    const { id, key } = data(created) as { id: string; key: string };
    expect((await listedKey(id))?.lastUsedAt).toBeNull();
    const first = clock.now();
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    expect((await listedKey(id))?.lastUsedAt).toBe(new Date(first).toISOString());
    clock.advance(30_000);
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    expect((await listedKey(id))?.lastUsedAt).toBe(new Date(first).toISOString());
    clock.advance(31_000);
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    expect((await listedKey(id))?.lastUsedAt).toBe(new Date(clock.now()).toISOString());
  });
});

describe("invitations", () => {
  it("refuses a second pending invitation for one address with 409 naming it, and changes nothing", async () => {
    const first = await invite(h.server, { cookie: owner.cookie }, "twice@keys.example", "viewer");
    const again = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.invite", {
      email: "Twice@Keys.example",
      role: "admin",
    });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain("twice@keys.example already has a pending invitation");
    const pending = (await pendingInvitations()).filter((i) => i.email === "twice@keys.example");
    expect(pending).toEqual([expect.objectContaining({ id: first.invitationId, role: "viewer" })]);
  });

  it("revokes a pending invitation: its link stops working, and the address can be invited again", async () => {
    const invitation = await invite(h.server, { cookie: owner.cookie }, "revoked@keys.example", "developer");
    const devRevokes = await trpc(
      h.server,
      { cookie: developer.cookie },
      "mutation",
      "members.revokeInvitation",
      {
        invitationId: invitation.invitationId,
      },
    );
    expect(devRevokes.status).toBe(403);
    const revoked = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.revokeInvitation", {
      invitationId: invitation.invitationId,
    });
    expect(revoked.status).toBe(200);
    expect(data(revoked)).toEqual({
      id: invitation.invitationId,
      email: "revoked@keys.example",
      revoked: true,
    });
    expect((await pendingInvitations()).map((i) => i.email)).not.toContain("revoked@keys.example");
    const twice = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.revokeInvitation", {
      invitationId: invitation.invitationId,
    });
    expect(twice.status).toBe(404);
    const person = await signUp(h.server, "revoked@keys.example", "Late");
    expect((await acceptInvitation(h.server, person, invitation)).status).toBe(404);
    expect(
      await h.db.prisma.auditEvent.count({
        where: {
          organizationId: tenantId,
          action: "member.invitation.revoked",
          targetId: invitation.invitationId,
        },
      }),
    ).toBe(1);
    const renewed = await invite(h.server, { cookie: owner.cookie }, "revoked@keys.example", "viewer");
    expect((await acceptInvitation(h.server, person, renewed)).status).toBe(200);
  });

  it("an expired invitation no longer blocks a new one", async () => {
    await invite(h.server, { cookie: owner.cookie }, "late@keys.example", "viewer");
    clock.advance(INVITATION_TTL_MS + 1);
    const renewed = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.invite", {
      email: "late@keys.example",
      role: "viewer",
    });
    expect(renewed.status).toBe(200);
  });
});

describe("config history", () => {
  it("lists every config change of a topic, newest first, with who made it and the diff", async () => {
    const { key } = data(
      await createKey({ cookie: owner.cookie }, { name: "ops", scopes: ["topics:read", "topics:write"] }),
    ) as { key: string };
    const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "history",
      partitions: 1,
      configs: { "cleanup.policy": "compact", "segment.ms": 3_600_000 },
    });
    expect(created.status).toBe(201);
    clock.advance(1_000);
    const altered = await trpc(h.server, { cookie: owner.cookie }, "mutation", "topics.alterConfigs", {
      topic: "history",
      set: { "segment.ms": "7200000", "max.compaction.lag.ms": "86400000" },
    });
    expect(altered.status).toBe(200);
    clock.advance(1_000);
    const reset = await rest(h.server, { apiKey: key }, "PATCH", "/topics/history/configs", {
      reset: ["segment.ms"],
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    // A change that changes nothing leaves no entry.
    await trpc(h.server, { cookie: owner.cookie }, "mutation", "topics.alterConfigs", {
      topic: "history",
      set: { "max.compaction.lag.ms": "86400000" },
    });

    const history = await rest(h.server, { apiKey: key }, "GET", "/topics/history/config-history");
    expect(history.status).toBe(200);
    const entries = history.body.entries as {
      action: string;
      at: string;
      actor: { type: string; name: string | null };
      changes: { name: string; before: string | null; after: string | null }[];
    }[];
    expect(entries.map((e) => e.action)).toEqual(["altered", "altered", "created"]);
    expect(entries[0]).toMatchObject({
      // A key is named with the member who created it.
      actor: { type: "apiKey", name: expect.stringMatching(/^API key "ops" \(created by .+ <.+@.+>\)$/) },
      changes: [{ name: "segment.ms", before: "7200000", after: null }],
    });
    expect(entries[1]).toMatchObject({
      at: new Date(clock.now() - 1_000).toISOString(),
      actor: { type: "user", name: "Owner <owner@keys.example>" },
      changes: [
        { name: "max.compaction.lag.ms", before: null, after: "86400000" },
        { name: "segment.ms", before: "3600000", after: "7200000" },
      ],
    });
    expect(entries[2]?.changes).toEqual([
      { name: "cleanup.policy", before: null, after: "compact" },
      { name: "segment.ms", before: null, after: "3600000" },
    ]);
  });

  it("answers 404 for a topic of another tenant, and input it cannot serve with 400", async () => {
    const other = await signUp(h.server, "other@keys.example", "Other");
    const foreign = await trpc(h.server, { cookie: other.cookie }, "query", "topics.configHistory", {
      topic: "history",
    });
    expect(foreign.status).toBe(404);
    const tooMany = await trpc(h.server, { cookie: owner.cookie }, "query", "topics.configHistory", {
      topic: "history",
      limit: 100_000,
    });
    expect(tooMany.status).toBe(400);
  });
});
