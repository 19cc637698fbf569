import { describe, expect, it } from "vitest";
import { verifyAuditChain } from "../src/index";
import {
  acceptInvitation,
  invitationFromLink,
  PUBLIC_URL,
  rest,
  setActiveTenant,
  signUp,
  trpc,
  useHarness,
} from "./api-harness";

const h = useHarness("cp");

describe("sign-up and tenants", () => {
  it("sign-up creates a tenant with the user as owner, and the session works against tRPC", async () => {
    const session = await signUp(h.server, "owner@example.com", "Owner");
    const members = await h.db.prisma.member.findMany({ where: { userId: session.userId } });
    expect(members).toHaveLength(1);
    expect(members[0]!.role).toBe("owner");
    const listed = await trpc(h.server, { cookie: session.cookie }, "query", "topics.list", {});
    expect(listed.status).toBe(200);
    expect(listed.body.result?.data).toEqual({ topics: [], nextCursor: null });
    expect(await verifyAuditChain(h.db.prisma, members[0]!.organizationId)).toBeNull();
  });

  it("provisionTenant is safe to call again with the same email", async () => {
    const first = await h.server.provisionTenant({
      name: "Demo",
      email: "demo@example.com",
      password: "demo-password-1",
    });
    const again = await h.server.provisionTenant({
      name: "Demo",
      email: "Demo@Example.com",
      password: "demo-password-1",
    });
    expect(again).toEqual(first);
    // The operator names the address, so it counts as verified (invitations to it need no token).
    expect((await h.db.prisma.user.findUniqueOrThrow({ where: { id: first.userId } })).emailVerified).toBe(
      true,
    );
    expect(await h.db.prisma.organization.count({ where: { id: first.organizationId } })).toBe(1);
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        h.server.provisionTenant({ name: "Race", email: "race@example.com", password: "race-password-1" }),
      ),
    );
    expect(new Set(racing.map((t) => t.userId)).size).toBe(1);
    expect(new Set(racing.map((t) => t.organizationId)).size).toBe(1);
    expect(await h.db.prisma.member.count({ where: { userId: racing[0]!.userId } })).toBe(1);
    const key = await h.server.createApiKey({
      organizationId: first.organizationId,
      userId: first.userId,
      name: "seed",
    });
    expect(key.key.startsWith("lw_")).toBe(true);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const stored = await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored.key).not.toContain(key.key);
    const listed = await rest(h.server, { apiKey: key.key }, "GET", "/topics");
    expect(listed.status).toBe(200);
  });
});

describe("organizations made in the console", () => {
  it("a signed-in user creates another organization through better-auth: owner, active, audited", async () => {
    const user = await signUp(h.server, "founder@example.com", "Founder");
    const created = await h.server.auth.handler(
      new Request(`${PUBLIC_URL}/api/auth/organization/create`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: user.cookie, origin: PUBLIC_URL },
        body: JSON.stringify({ name: "Second Venture", slug: "second-venture-1a2b3c" }),
      }),
    );
    expect(created.status, await created.clone().text()).toBe(200);
    const { id: organizationId } = (await created.json()) as { id: string };
    const me = await trpc(h.server, { cookie: user.cookie }, "query", "tenant.current");
    expect(me.body.result?.data).toMatchObject({
      tenantId: organizationId,
      name: "Second Venture",
      role: "owner",
    });
    const events = await h.db.prisma.auditEvent.findMany({
      where: { organizationId },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => [e.action, e.actorId])).toEqual([["tenant.created", user.userId]]);
    expect(events[0]!.data).toEqual({ name: "Second Venture", slug: "second-venture-1a2b3c" });
    expect(await verifyAuditChain(h.db.prisma, organizationId)).toBeNull();
  });
});

describe("members", () => {
  it("invites with a role; the invitee accepts with the link and works in that role", async () => {
    const owner = await signUp(h.server, "boss@example.com", "Boss");
    const invited = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.invite", {
      email: "Newbie@Example.com",
      role: "developer",
    });
    expect(invited.status).toBe(200);
    const { link } = invited.body.result!.data as { link: string };
    const { invitationId, token } = invitationFromLink(link);
    expect(link.startsWith(`${PUBLIC_URL}/invitations/${invitationId}?token=lwi_`)).toBe(true);

    const newbie = await signUp(h.server, "newbie@example.com", "Newbie");
    const accepted = await acceptInvitation(h.server, newbie, { invitationId, token });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const bossTenant = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } }))
      .organizationId;
    const setActive = await setActiveTenant(h.server, newbie, bossTenant);
    expect(setActive.status).toBe(200);
    const me = await trpc(h.server, { cookie: newbie.cookie }, "query", "tenant.current");
    expect(me.body.result?.data).toMatchObject({ tenantId: bossTenant, role: "developer" });
    const joined = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { organizationId: bossTenant, action: "member.joined" },
    });
    expect(joined).toMatchObject({ actorType: "user", actorId: newbie.userId, targetType: "member" });
    expect(joined.data).toMatchObject({
      invitationId,
      email: "newbie@example.com",
      role: "developer",
      proof: "token",
    });
    expect(await verifyAuditChain(h.db.prisma, bossTenant)).toBeNull();
    expect(
      (await trpc(h.server, { cookie: newbie.cookie }, "mutation", "topics.create", { name: "t" })).status,
    ).toBe(200);
    const escalate = await trpc(h.server, { cookie: newbie.cookie }, "mutation", "members.invite", {
      email: "x@example.com",
      role: "admin",
    });
    expect(escalate.status).toBe(403);

    const listed = await trpc(h.server, { cookie: owner.cookie }, "query", "members.list");
    const members = (listed.body.result!.data as { members: { id: string; email: string; role: string }[] })
      .members;
    expect(members.map((m) => [m.email, m.role])).toEqual([
      ["boss@example.com", "owner"],
      ["newbie@example.com", "developer"],
    ]);
    const newbieMember = members[1]!;
    const demoted = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.changeRole", {
      memberId: newbieMember.id,
      role: "viewer",
    });
    expect(demoted.status).toBe(200);
    expect(
      (await trpc(h.server, { cookie: newbie.cookie }, "mutation", "topics.create", { name: "t2" })).status,
    ).toBe(403);
    const ownerMember = members[0]!;
    const demoteOwner = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.changeRole", {
      memberId: ownerMember.id,
      role: "viewer",
    });
    expect(demoteOwner.status).toBe(409);
  });
});

describe("API keys and topics", () => {
  it("a session creates a key; the key creates, lists, describes and deletes topics over REST", async () => {
    const session = await signUp(h.server, "dev@example.com");
    const created = await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.create", {
      name: "ci",
      scopes: ["topics:read", "topics:write"],
    });
    expect(created.status).toBe(200);
    const { key } = created.body.result!.data as { key: string };

    const topic = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "users",
      partitions: 3,
      configs: { "cleanup.policy": "compact" },
    });
    expect(topic.status).toBe(201);
    expect(topic.body).toMatchObject({ topic: { name: "users", partitions: 3, cleanupPolicy: "compact" } });
    const rows = await h.db.prisma.partition.findMany({
      where: { topic: { name: "users" } },
      orderBy: { index: "asc" },
    });
    expect(rows.map((p) => [p.index, p.ownerWorkerId])).toEqual([
      [0, null],
      [1, null],
      [2, null],
    ]);

    const dryRun = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "dry",
      validateOnly: true,
    });
    expect(dryRun.status).toBe(200);
    const list = await rest(h.server, { apiKey: key }, "GET", "/topics");
    expect((list.body.topics as { name: string }[]).map((t) => t.name)).toEqual(["users"]);

    const described = await rest(h.server, { apiKey: key }, "GET", "/topics/users");
    expect(described.status).toBe(200);
    const entries = described.body.configEntries as { name: string; source: string; value: string }[];
    expect(entries.find((e) => e.name === "cleanup.policy")).toMatchObject({
      source: "set",
      value: "compact",
    });
    expect(entries.find((e) => e.name === "retention.ms")).toMatchObject({ source: "default" });

    const duplicate = await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "users" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe("TOPIC_EXISTS");

    const deleted = await rest(h.server, { apiKey: key }, "DELETE", "/topics/users");
    expect(deleted.status).toBe(200);
    expect(await h.db.prisma.partition.count({ where: { topic: { name: "users" } } })).toBe(0);
  });

  it("pages topic lists with opaque cursors", async () => {
    const session = await signUp(h.server, "pager@example.com");
    for (const name of ["a", "b", "c"]) {
      const res = await trpc(h.server, { cookie: session.cookie }, "mutation", "topics.create", { name });
      expect(res.status).toBe(200);
    }
    const first = await trpc(h.server, { cookie: session.cookie }, "query", "topics.list", { limit: 2 });
    const page1 = first.body.result!.data as { topics: { name: string }[]; nextCursor: string };
    expect(page1.topics.map((t) => t.name)).toEqual(["a", "b"]);
    const second = await trpc(h.server, { cookie: session.cookie }, "query", "topics.list", {
      limit: 2,
      cursor: page1.nextCursor,
    });
    const page2 = second.body.result!.data as { topics: { name: string }[]; nextCursor: string | null };
    expect(page2).toMatchObject({ topics: [{ name: "c" }], nextCursor: null });
  });

  it("pages API keys with opaque cursors", async () => {
    const session = await signUp(h.server, "keyring@example.com");
    for (const name of ["k1", "k2", "k3"]) {
      await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.create", { name });
    }
    const all = await trpc(h.server, { cookie: session.cookie }, "query", "apiKeys.list");
    const listed = all.body.result!.data as { apiKeys: { name: string }[]; nextCursor: string | null };
    expect(listed.apiKeys.map((k) => k.name).sort()).toEqual(["k1", "k2", "k3"]);
    const created = await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.create", {
      name: "pager",
      scopes: ["keys:read"],
    });
    const { key } = created.body.result!.data as { key: string };
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rest(
        h.server,
        { apiKey: key },
        "GET",
        `/api-keys?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      names.push(...(page.body.apiKeys as { name: string }[]).map((k) => k.name));
      cursor = (page.body.nextCursor as string | null) ?? undefined;
    } while (cursor);
    expect(names.sort()).toEqual(["k1", "k2", "k3", "pager"]);
    const forged = await rest(
      h.server,
      { apiKey: key },
      "GET",
      `/api-keys?cursor=${Buffer.from('["topics","x"]').toString("base64url")}`,
    );
    expect(forged.status).toBe(400);
  });

  it("a revoked key is refused", async () => {
    const session = await signUp(h.server, "revoker@example.com");
    const created = await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.create", {
      name: "tmp",
    });
    const { id, key } = created.body.result!.data as { id: string; key: string };
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    const revoked = await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.revoke", { id });
    expect(revoked.status).toBe(200);
    const after = await rest(h.server, { apiKey: key }, "GET", "/topics");
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("UNAUTHENTICATED");
  });
});

describe("errors are problem+json and change nothing", () => {
  it("answers bad input, bad JSON, no credentials and unknown routes with problem documents", async () => {
    const session = await signUp(h.server, "errors@example.com");
    const created = await trpc(h.server, { cookie: session.cookie }, "mutation", "apiKeys.create", {
      name: "k",
      scopes: ["topics:read", "topics:write", "records:write"],
    });
    const { key } = created.body.result!.data as { key: string };
    const before = await h.db.prisma.topic.count();

    const invalid = await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "x", partitions: 0 });
    expect(invalid.status).toBe(400);
    expect(invalid.contentType).toBe("application/problem+json");
    expect(invalid.body).toMatchObject({ code: "INVALID_INPUT", status: 400 });
    expect(String(invalid.body.detail)).toContain("partitions");

    // A name ending in the view suffix would shadow a compacted topic's Kafka view.
    const shadowing = await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "orders.latest" });
    expect(shadowing.status).toBe(400);
    expect(shadowing.body).toMatchObject({ code: "INVALID_INPUT", status: 400 });
    expect(String(shadowing.body.detail)).toContain("may not end in '.latest'");

    const badConfig = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "x",
      configs: { "cleanup.policy": "shred" },
    });
    expect(badConfig.status).toBe(400);
    expect(badConfig.body.code).toBe("INVALID_CONFIG");
    expect(String(badConfig.body.detail)).toContain("cleanup.policy");

    const malformed = await rest(h.server, { apiKey: key }, "POST", "/topics", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("MALFORMED_REQUEST");

    const anonymous = await rest(h.server, {}, "GET", "/topics");
    expect(anonymous.status).toBe(401);
    expect(anonymous.contentType).toBe("application/problem+json");

    const nowhere = await rest(h.server, { apiKey: key }, "GET", "/nowhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.code).toBe("NOT_FOUND");

    expect(await h.db.prisma.topic.count()).toBe(before);
  });

  it("serves the OpenAPI document with the record routes", async () => {
    const doc = await rest(h.server, {}, "GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const paths = doc.body.paths as Record<
      string,
      Record<string, { responses: Record<string, { content?: object }> }>
    >;
    const produce = paths["/topics/{topic}/records"]!.post!.responses;
    expect(Object.keys(produce)).toEqual(expect.arrayContaining(["200", "207", "404", "429"]));
    expect(Object.keys(produce["404"]!.content!)).toEqual(["application/problem+json"]);
    expect(Object.keys(paths["/topics"]!.post!.responses)).toEqual(expect.arrayContaining(["201", "200"]));
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        "/topics/{topic}",
        "/topics/{topic}/partitions/{partition}/records",
        "/consumer-groups/{group}",
      ]),
    );
  });
});
