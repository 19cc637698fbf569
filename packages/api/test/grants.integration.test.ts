import { beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "../src/index";
import {
  acceptInvitation,
  authCall,
  type Caller,
  createKeyAs,
  invite,
  joinAs as joinTenant,
  type Session,
  signUp,
  trpc,
  useHarness,
} from "./api-harness";

const h = useHarness("grants");
let owner: Session;
let tenantId: string;
let developer: Session;
let ownerKeyId: string;

const createKey = (caller: Caller, name: string, scopes: string[]) =>
  createKeyAs(h.server, caller, name, scopes);
/** A person who signed up, was invited by the owner with `role` and accepted with the link. */
const joinAs = (email: string, role: string) => joinTenant(h.server, owner, email, role);

async function memberOf(userId: string) {
  return h.db.prisma.member.findFirstOrThrow({ where: { organizationId: tenantId, userId } });
}

async function roleOf(userId: string): Promise<string | undefined> {
  const member = await h.db.prisma.member.findFirst({ where: { organizationId: tenantId, userId } });
  return member?.role;
}

beforeAll(async () => {
  owner = await signUp(h.server, "owner@example.com", "Owner");
  tenantId = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } })).organizationId;
  ownerKeyId = (await createKey({ cookie: owner.cookie }, "owner-admin", ["admin"])).id;
  developer = await joinAs("dev@example.com", "developer");
});

describe("a pending invitation cannot be taken over", () => {
  it("an invitation id and an unverified sign-up with the invited address are not enough", async () => {
    const invitation = await invite(h.server, { cookie: owner.cookie }, "newhire@example.com", "admin");

    // The developer (members:read) sees the invitation but neither its id nor its token.
    const listed = await trpc(h.server, { cookie: developer.cookie }, "query", "members.list");
    const invitations = (listed.body.result!.data as { invitations: Record<string, unknown>[] }).invitations;
    expect(invitations).toEqual([expect.objectContaining({ email: "newhire@example.com", id: null })]);
    expect(JSON.stringify(listed.body)).not.toContain(invitation.invitationId);
    expect(JSON.stringify(listed.body)).not.toContain(invitation.token);
    // better-auth's own listings of the tenant are switched off.
    for (const path of ["/organization/list-invitations", "/organization/get-full-organization"]) {
      expect((await authCall(h.server, path, developer, undefined, "GET")).status, path).toBe(404);
    }

    // Suppose the id leaked anyway: an unverified account with the address cannot use it.
    const squatter = await signUp(h.server, "newhire@example.com", "Not the new hire");
    // Nor can it mark itself verified.
    await authCall(h.server, "/update-user", squatter, { emailVerified: true });
    expect((await h.db.prisma.user.findUniqueOrThrow({ where: { id: squatter.userId } })).emailVerified).toBe(
      false,
    );
    const byId = await acceptInvitation(h.server, squatter, { invitationId: invitation.invitationId });
    expect(byId.status).toBe(403);
    const wrongToken = await acceptInvitation(h.server, squatter, {
      invitationId: invitation.invitationId,
      token: "lwi_guessed",
    });
    expect(wrongToken.status).toBe(403);
    const viaBetterAuth = await authCall(h.server, "/organization/accept-invitation", squatter, {
      invitationId: invitation.invitationId,
    });
    expect(viaBetterAuth.status).toBe(404);
    const declined = await trpc(h.server, { cookie: squatter.cookie }, "mutation", "invitations.decline", {
      invitationId: invitation.invitationId,
    });
    expect(declined.status).toBe(403);
    expect(await roleOf(squatter.userId)).toBeUndefined();
    expect(
      (await h.db.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.invitationId } })).status,
    ).toBe("pending");

    // The person holding the link gets in, once.
    const accepted = await acceptInvitation(h.server, squatter, invitation);
    expect(accepted.status).toBe(200);
    expect(await roleOf(squatter.userId)).toBe("admin");
    expect((await acceptInvitation(h.server, squatter, invitation)).status).toBe(404);
  });

  it("a verified address accepts without the token; the invite link's token is stored only hashed", async () => {
    const invitation = await invite(h.server, { cookie: owner.cookie }, "verified@example.com", "viewer");
    const stored = await h.db.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.invitationId } });
    expect(stored.tokenHash).toBeTruthy();
    expect(JSON.stringify(stored)).not.toContain(invitation.token);

    const person = await signUp(h.server, "verified@example.com", "Verified");
    expect((await acceptInvitation(h.server, person, { invitationId: invitation.invitationId })).status).toBe(
      403,
    );
    const mail = h.mail.findLast((m) => m.to === "verified@example.com");
    const link = /https?:\/\/\S+verify-email\S+/.exec(mail?.text ?? "")?.[0];
    expect(link, "a verification link was sent at sign-up").toBeDefined();
    const verified = await h.server.auth.handler(new Request(link!, { headers: { cookie: person.cookie } }));
    expect(verified.status).toBeLessThan(400);
    expect((await h.db.prisma.user.findUniqueOrThrow({ where: { id: person.userId } })).emailVerified).toBe(
      true,
    );

    const accepted = await acceptInvitation(h.server, person, { invitationId: invitation.invitationId });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await roleOf(person.userId)).toBe("viewer");
    const joined = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { organizationId: tenantId, action: "member.joined", actorId: person.userId },
    });
    expect(joined.data).toMatchObject({ role: "viewer", proof: "email" });
  });

  it("an invitation is void once its inviter can no longer grant its role", async () => {
    const admin = await joinAs("temp-admin@example.com", "admin");
    const invitation = await invite(h.server, { cookie: admin.cookie }, "later@example.com", "admin");
    const adminMember = await memberOf(admin.userId);
    const demoted = await trpc(h.server, { cookie: owner.cookie }, "mutation", "members.changeRole", {
      memberId: adminMember.id,
      role: "viewer",
    });
    expect(demoted.status).toBe(200);
    const later = await signUp(h.server, "later@example.com", "Later");
    expect((await acceptInvitation(h.server, later, invitation)).status).toBe(403);
    expect(await roleOf(later.userId)).toBeUndefined();
  });
});

describe("members:write grants nothing above its holder", () => {
  it("a key with members:write cannot invite or promote to admin, nor change or remove an admin", async () => {
    const { key } = await createKey({ cookie: owner.cookie }, "people", ["members:write", "members:read"]);
    const asKey = { apiKey: key };
    const inviteAdmin = await trpc(h.server, asKey, "mutation", "members.invite", {
      email: "crony@example.com",
      role: "admin",
    });
    expect(inviteAdmin.status).toBe(403);
    expect(inviteAdmin.body.error?.data.code).toBe("INSUFFICIENT_SCOPE");
    // A developer holds scopes this key lacks, so the key cannot make one either.
    const inviteDeveloper = await trpc(h.server, asKey, "mutation", "members.invite", {
      email: "crony@example.com",
      role: "developer",
    });
    expect(inviteDeveloper.status).toBe(403);

    const devMember = await memberOf(developer.userId);
    const promote = await trpc(h.server, asKey, "mutation", "members.changeRole", {
      memberId: devMember.id,
      role: "admin",
    });
    expect(promote.status).toBe(403);
    expect(await roleOf(developer.userId)).toBe("developer");

    const admin = await joinAs("second-admin@example.com", "admin");
    const adminMember = await memberOf(admin.userId);
    const demote = await trpc(h.server, asKey, "mutation", "members.changeRole", {
      memberId: adminMember.id,
      role: "viewer",
    });
    expect(demote.status).toBe(403);
    const remove = await trpc(h.server, asKey, "mutation", "members.remove", { memberId: adminMember.id });
    expect(remove.status).toBe(403);
    expect(await roleOf(admin.userId)).toBe("admin");
  });

  it("a key holding a role's scopes may invite to that role", async () => {
    const { key } = await createKey({ cookie: owner.cookie }, "viewer-maker", [
      "members:write",
      "topics:read",
      "records:read",
      "groups:read",
      "schemas:read",
    ]);
    const invited = await trpc(h.server, { apiKey: key }, "mutation", "members.invite", {
      email: "reader@example.com",
      role: "viewer",
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
  });
});

describe("developers cannot switch off admin credentials", () => {
  it("better-auth's key, member and organization endpoints answer 404 over HTTP, and change nothing", async () => {
    const before = await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: ownerKeyId } });
    const devMember = await memberOf(developer.userId);
    const calls: [string, unknown][] = [
      [
        "/api-key/update",
        { keyId: ownerKeyId, enabled: false, metadata: { createdByUserId: developer.userId } },
      ],
      ["/api-key/create", { name: "side-door", organizationId: tenantId, permissions: { admin: ["all"] } }],
      ["/api-key/delete", { keyId: ownerKeyId }],
      ["/organization/invite-member", { email: "x@example.com", role: "admin", organizationId: tenantId }],
      [
        "/organization/update-member-role",
        { memberId: devMember.id, role: "admin", organizationId: tenantId },
      ],
      ["/organization/remove-member", { memberIdOrEmail: "owner@example.com", organizationId: tenantId }],
      ["/organization/cancel-invitation", { invitationId: "x" }],
      ["/organization/reject-invitation", { invitationId: "x" }],
      ["/organization/leave", { organizationId: tenantId }],
      ["/organization/update", { data: { name: "pwned" }, organizationId: tenantId }],
      ["/organization/delete", { organizationId: tenantId }],
    ];
    for (const [path, body] of calls) {
      // Spellings a router might fold onto the same endpoint are refused too.
      const encoded = path.replace(/-/, "%2D");
      for (const spelling of [path, `${path}/`, `/${path}`, path.toUpperCase(), encoded]) {
        const answer = await authCall(h.server, spelling, developer, body);
        expect(answer.status, `${spelling}: ${answer.text}`).toBe(404);
      }
    }
    for (const path of ["/api-key/list", `/api-key/get?id=${ownerKeyId}`]) {
      expect((await authCall(h.server, path, developer, undefined, "GET")).status, path).toBe(404);
    }
    const after = await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: ownerKeyId } });
    expect(after).toEqual(before);
    expect(await roleOf(developer.userId)).toBe("developer");
    expect(await h.db.prisma.apiKey.count({ where: { name: "side-door" } })).toBe(0);
    // What the console still calls directly keeps working.
    expect(
      (await authCall(h.server, "/organization/set-active", developer, { organizationId: tenantId })).status,
    ).toBe(200);
  });

  it("keys:write revokes only keys whose scopes the revoker holds, and every revocation is audited", async () => {
    const refused = await trpc(h.server, { cookie: developer.cookie }, "mutation", "apiKeys.revoke", {
      id: ownerKeyId,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.data.code).toBe("INSUFFICIENT_SCOPE");
    const devKeys = await createKey({ cookie: developer.cookie }, "dev-keys", ["keys:write", "topics:read"]);
    const byKey = await trpc(h.server, { apiKey: devKeys.key }, "mutation", "apiKeys.revoke", {
      id: ownerKeyId,
    });
    expect(byKey.status).toBe(403);
    expect((await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: ownerKeyId } })).enabled).not.toBe(
      false,
    );

    const own = await createKey({ cookie: developer.cookie }, "dev-ci", ["topics:read"]);
    const revoked = await trpc(h.server, { apiKey: devKeys.key }, "mutation", "apiKeys.revoke", {
      id: own.id,
    });
    expect(revoked.status).toBe(200);
    const events = await h.db.prisma.auditEvent.findMany({
      where: { organizationId: tenantId, targetId: own.id },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => [e.action, e.actorType])).toEqual([
      ["apiKey.created", "user"],
      ["apiKey.revoked", "apiKey"],
    ]);
    expect(events[1]!.data).toMatchObject({ scopes: ["topics:read"] });
    expect(await verifyAuditChain(h.db.prisma, tenantId)).toBeNull();
  });
});
