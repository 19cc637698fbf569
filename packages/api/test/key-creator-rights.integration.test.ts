import type { Admin, Kafka } from "kafkajs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  createKeyAs,
  joinAs as joinTenant,
  rest,
  type Session,
  signUp,
  trpc,
} from "./api-harness";
import { useTenantWorld, worldKafka } from "./tenant-world";

// Issue 28, point 1: a key acts with at most its creator's current role, on REST and over Kafka,
// checked on every request and login (open Kafka connections within the listener's sweep). A
// demoted member's key loses what the new role lacks (403 with the reason); a removed member's keys
// are revoked with them (401, their Kafka connections closed, audited); the key list names each
// key's creator and their role now. The worker is a real process.

const h = useTenantWorld("key_creator_rights");
let owner: Session;
let tenantId: string;

const createKey = (caller: Caller, name: string, scopes: string[]) =>
  createKeyAs(h.server, caller, name, scopes);
/** A person who signed up, was invited by the owner with `role` and accepted with the link. */
const joinAs = (email: string, role: string) => joinTenant(h.server, owner, email, role);

async function memberId(session: Session): Promise<string> {
  const member = await h.db.prisma.member.findFirstOrThrow({
    where: { organizationId: tenantId, userId: session.userId },
  });
  return member.id;
}

function kafka(key: { id: string; key: string }): Kafka {
  return worldKafka(h, "creator-rights-test", {
    sasl: { mechanism: "plain", username: key.id, password: key.key },
    retry: { retries: 8, initialRetryTime: 100 },
  });
}

async function listedKey(id: string) {
  const listed = await rest(h.server, { cookie: owner.cookie }, "GET", "/api-keys");
  return (listed.body.apiKeys as { id: string }[]).find((k) => k.id === id) as Record<string, unknown>;
}

/** "created", or the Kafka error type CreateTopics answered for the topic. */
function createOutcome(admin: Admin, name: string): Promise<string> {
  return admin
    .createTopics({ topics: [{ topic: name, numPartitions: 1 }], waitForLeaders: false })
    .then(() => "created")
    .catch((error: { errors?: { type?: string }[]; type?: string; message: string }) => {
      return error.errors?.[0]?.type ?? error.type ?? error.message;
    });
}

const topic = (name: string) => ({ name, partitions: 1, configs: {} });

beforeAll(async () => {
  owner = await signUp(h.server, "owner@creator-rights.example", "Owner");
  tenantId = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } })).organizationId;
  const ownerKey = await createKey({ cookie: owner.cookie }, "owner", ["admin"]);
  expect((await rest(h.server, { apiKey: ownerKey.key }, "POST", "/topics", topic("orders"))).status).toBe(
    201,
  );
});

describe("a demoted member's key", () => {
  it("keeps only what the new role holds, on REST at once and on an open Kafka connection within the sweep", async () => {
    const developer = await joinAs("dev@creator-rights.example", "developer");
    const key = await createKey({ cookie: developer.cookie }, "dev-key", [
      "topics:read",
      "topics:write",
      "records:read",
      "keys:write",
    ]);
    const caller = { apiKey: key.key };
    expect((await rest(h.server, caller, "POST", "/topics", topic("dev-made"))).status).toBe(201);
    const admin = kafka(key).admin();
    await admin.connect();
    try {
      expect(
        await admin.createTopics({
          topics: [{ topic: "dev-kafka", numPartitions: 1 }],
          waitForLeaders: false,
        }),
      ).toBe(true);

      const demoted = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.changeRole", {
        memberId: await memberId(developer),
        role: "viewer",
      });
      expect(demoted.status).toBe(200);

      const refused = await rest(h.server, caller, "POST", "/topics", topic("after-demotion"));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "INSUFFICIENT_SCOPE", requiredScope: "topics:write" });
      expect(String(refused.body.detail)).toContain("creator's current role (viewer)");
      // What the viewer role holds still works.
      expect((await rest(h.server, caller, "GET", "/topics/orders")).status).toBe(200);
      // Minting a key is refused with the reason (it was an unlogged 500).
      const minted = await rest(h.server, caller, "POST", "/api-keys", {
        name: "escape",
        scopes: ["topics:read"],
      });
      expect(minted.status).toBe(403);
      expect(minted.body.code).toBe("INSUFFICIENT_SCOPE");

      // The connection opened before the demotion is refused within the listener's sweep.
      let attempt = 0;
      await expect
        .poll(() => createOutcome(admin, `dev-kafka-${++attempt}`), { timeout: 15_000 })
        .toBe("TOPIC_AUTHORIZATION_FAILED");
    } finally {
      await admin.disconnect();
    }
    const fresh = kafka(key).admin();
    await fresh.connect();
    try {
      expect(await createOutcome(fresh, "dev-kafka-fresh")).toBe("TOPIC_AUTHORIZATION_FAILED");
      expect(await fresh.listTopics()).toContain("orders");
    } finally {
      await fresh.disconnect();
    }
    expect(
      await h.db.prisma.topic.count({ where: { organizationId: tenantId, name: "dev-kafka-fresh" } }),
    ).toBe(0);
    expect(await listedKey(key.id)).toMatchObject({
      createdBy: { userId: developer.userId, email: "dev@creator-rights.example", role: "viewer" },
      revoked: false,
    });
  });
});

describe("a removed member's keys", () => {
  it("are revoked with the membership: 401 on REST, Kafka connections closed and logins refused, audited", async () => {
    const adminMember = await joinAs("admin@creator-rights.example", "admin");
    const viewer = await joinAs("viewer@creator-rights.example", "viewer");
    const key = await createKey({ cookie: adminMember.cookie }, "admin-key", ["admin"]);
    const consumer = kafka(key).admin();
    await consumer.connect();
    expect(await consumer.listTopics()).toContain("orders");

    const removed = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.remove", {
      memberId: await memberId(adminMember),
    });
    expect(removed.status).toBe(200);
    expect(removed.body.result!.data).toMatchObject({ removed: true, revokedKeys: [key.id] });

    const caller = { apiKey: key.key };
    for (const [method, path, body] of [
      ["GET", "/topics/orders/partitions/0/records", undefined],
      ["POST", "/topics", topic("after-removal")],
      ["POST", "/api-keys", { name: "escape", scopes: ["admin"] }],
    ] as const) {
      const answer = await rest(h.server, caller, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
    const promote = await trpc(h.server, caller, "mutation", "members.changeRole", {
      memberId: await memberId(viewer),
      role: "admin",
    });
    expect(promote.status).toBe(401);
    expect(
      await h.db.prisma.member.findFirstOrThrow({
        where: { organizationId: tenantId, userId: viewer.userId },
      }),
    ).toMatchObject({
      role: "viewer",
    });

    // The open connection is closed by the sweep; kafkajs's reconnect then fails its login. Only
    // that refusal ends the wait: a request that timed out on a loaded machine says nothing of the
    // sweep (the fresh login below would then still meet the key's cached row).
    await expect
      .poll(
        () =>
          consumer
            .listTopics()
            .then(() => "served")
            .catch((error: Error) => (/SASL|authentic/i.test(error.message) ? "refused" : error.message)),
        { timeout: 15_000 },
      )
      .toBe("refused");
    await consumer.disconnect();
    await expect(kafka(key).admin().connect()).rejects.toThrow(/SASL|authentic/i);

    const audit = await h.db.prisma.auditEvent.findMany({
      where: { organizationId: tenantId, action: "apiKey.revoked", targetId: key.id },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.data).toMatchObject({ reason: "member.removed" });
    expect(await listedKey(key.id)).toMatchObject({
      createdBy: { userId: adminMember.userId, role: null },
      revoked: true,
    });
  });
});
