import { describe, expect, it } from "vitest";
import { EXPECTED_TENANT_HEADER } from "../src/services/tenant-slug";
import {
  acceptInvitation,
  invite,
  PUBLIC_URL,
  type Session,
  setActiveTenant,
  signUp,
  trpc,
  useHarness,
} from "./api-harness";

const h = useHarness("tenant_switch");

/** A tRPC call the way the console sends it: naming the tenant its page was rendered for. */
async function consoleCall(
  session: Session,
  expectedTenant: string,
  kind: "query" | "mutation",
  path: string,
  input: unknown,
) {
  const url = new URL(`${PUBLIC_URL}/api/trpc/${path}`);
  if (kind === "query") url.searchParams.set("input", JSON.stringify(input));
  const response = await h.server.handleTrpc(
    new Request(url, {
      method: kind === "query" ? "GET" : "POST",
      headers: {
        "content-type": "application/json",
        cookie: session.cookie,
        [EXPECTED_TENANT_HEADER]: expectedTenant,
      },
      body: kind === "mutation" ? JSON.stringify(input) : undefined,
    }),
  );
  return {
    status: response.status,
    body: (await response.json()) as { error?: { data: { code: string; problem: { detail: string } } } },
  };
}

describe("a page rendered for one tenant after the session switched to another", () => {
  it("is refused with 409 TENANT_CHANGED and changes nothing; the page's own tenant still works", async () => {
    const owner = await signUp(h.server, "owner-a@example.com", "Owner A");
    const tenantA = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: owner.userId } }))
      .organizationId;
    const invitation = await invite(h.server, { cookie: owner.cookie }, "both@example.com", "admin");
    const both = await signUp(h.server, "both@example.com", "Both");
    const tenantB = (await h.db.prisma.member.findFirstOrThrow({ where: { userId: both.userId } }))
      .organizationId;
    expect((await acceptInvitation(h.server, both, invitation)).status).toBe(200);

    // Tab 1 was rendered for B; tab 2 switches the session to A.
    expect((await setActiveTenant(h.server, both, tenantB)).status).toBe(200);
    expect((await consoleCall(both, tenantB, "mutation", "topics.create", { name: "in-b" })).status).toBe(
      200,
    );
    expect((await setActiveTenant(h.server, both, tenantA)).status).toBe(200);

    const stale = await consoleCall(both, tenantB, "mutation", "topics.create", { name: "meant-for-b" });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.data.code).toBe("TENANT_CHANGED");
    expect(stale.body.error?.data.problem.detail).toMatch(/another organization/);
    const staleRead = await consoleCall(both, tenantB, "query", "topics.list", {});
    expect(staleRead.status).toBe(409);
    expect(await h.db.prisma.topic.count({ where: { name: "meant-for-b" } })).toBe(0);

    // The same click from a page rendered for A (after the refresh) acts on A.
    const fresh = await consoleCall(both, tenantA, "mutation", "topics.create", { name: "meant-for-a" });
    expect(fresh.status).toBe(200);
    expect(await h.db.prisma.topic.findFirst({ where: { name: "meant-for-a" } })).toMatchObject({
      organizationId: tenantA,
    });
    // Callers that do not name a tenant (API keys, the CLI) are not affected.
    expect((await trpc(h.server, { cookie: both.cookie }, "query", "topics.list", {})).status).toBe(200);
  });
});
