/**
 * The data-plane secret that web and worker both fall back to when LASTWORD_INTERNAL_SECRET is not
 * set, so that `npm run dev` works with no environment. It lives here, beside the protocol that
 * checks it, because the two sides must agree on it byte for byte. It is public (it is in the
 * source), so each side's env.ts refuses it when NODE_ENV=production.
 */
export const DEV_INTERNAL_SECRET = "lastword-dev-internal-secret";
