import { PHASE_PRODUCTION_SERVER } from "next/constants";
import { getPathMatch } from "next/dist/shared/lib/router/utils/path-match";
import { describe, expect, it } from "vitest";
import nextConfig, { PAGE_TRAILING_SLASH_REDIRECT } from "../next.config";

// Issue 28.7: `DELETE /api/v1/topics/T/keys/..` arrived as `/api/v1/topics/T/`, Next answered 308
// to `/api/v1/topics/T`, and clients following redirects deleted the topic. API routes never
// redirect; pages keep the trailing-slash redirect.
describe("trailing-slash redirects", () => {
  const config = nextConfig(PHASE_PRODUCTION_SERVER);
  const matches = getPathMatch(PAGE_TRAILING_SLASH_REDIRECT.source, { strict: true });

  it("Next's own redirect is off, and ours is the only redirect", async () => {
    expect(config.skipTrailingSlashRedirect).toBe(true);
    expect(await config.redirects?.()).toEqual([PAGE_TRAILING_SLASH_REDIRECT]);
  });

  it.each([
    "/api/v1/topics/orders/",
    "/api/v1/",
    "/api/auth/sign-in/email/",
    "/api/trpc/topics.list/",
    "/api/",
  ])("does not redirect the API path %s", (path) => {
    expect(matches(path)).toBe(false);
  });

  it.each([
    ["/topics/", "topics"],
    ["/topics/orders/", "topics/orders"],
    ["/apidocs/", "apidocs"],
    ["/settings/api-keys/", "settings/api-keys"],
  ])("redirects the page path %s to the path without its slash", (path, target) => {
    expect(matches(path)).toMatchObject({ path: target });
  });
});
