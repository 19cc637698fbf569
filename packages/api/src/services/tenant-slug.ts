const SLUG_SUFFIX_BYTES = 3;

/**
 * An organization's slug from its name. Slugs are unique across all tenants; a random suffix keeps
 * two "Acme"s from colliding. Web Crypto only, so the console's create-organization form (which
 * creates through better-auth in the browser) and the server make the same slugs
 * (`@lastword/api/tenant-slug`).
 */
export function slugFor(name: string): string {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  const suffix = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(SLUG_SUFFIX_BYTES)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  return `${base || "tenant"}-${suffix}`;
}

/**
 * Sent by the console with every request: the tenant its page was rendered for. The active
 * organization belongs to the session, so a switch in another tab would otherwise make this tab's
 * next click act on the other tenant; a request naming another tenant than the session's is refused
 * with 409 TENANT_CHANGED and changes nothing.
 */
export const EXPECTED_TENANT_HEADER = "x-lastword-tenant";
