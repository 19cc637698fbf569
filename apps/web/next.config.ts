import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The console's Content-Security-Policy. Next's App Router streams its page data in inline
 * `<script>` tags, so script-src needs 'unsafe-inline' (a per-request nonce would need middleware
 * and would make the prerendered auth pages dynamic); everything else is our origin only, and no
 * page may be framed (clickjacking). `next dev` also evaluates code for fast refresh.
 */
const contentSecurityPolicy = (development: boolean) =>
  [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

const securityHeaders = (development: boolean) => [
  { key: "Content-Security-Policy", value: contentSecurityPolicy(development) },
  // frame-ancestors' predecessor, for browsers that do not read CSP.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];

/**
 * Next's default answer to a path ending in "/" is a 308 to the path without it. Under /api that
 * is dangerous: URL parsers turn `DELETE /api/v1/topics/T/keys/..` (or `%2E%2E`) into
 * `/api/v1/topics/T/`, and a client following the 308 would delete the topic. API routes never
 * redirect (the REST handler answers such a path 404, packages/api rest-routes.ts); the console's
 * pages keep the redirect through this rule, which leaves `/api/` out.
 */
export const PAGE_TRAILING_SLASH_REDIRECT = {
  source: "/:path((?!api(?:/|$)).+)/",
  destination: "/:path",
  permanent: true,
} as const;

const config = (phase: string): NextConfig => ({
  skipTrailingSlashRedirect: true,
  async redirects() {
    return [PAGE_TRAILING_SLASH_REDIRECT];
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders(phase === PHASE_DEVELOPMENT_SERVER) }];
  },
  // Our workspace packages export TypeScript source, so Next compiles them with the app.
  transpilePackages: [
    "@lastword/api",
    "@lastword/dataplane",
    "@lastword/db",
    "@lastword/envelope",
    "@lastword/erasure",
    "@lastword/logstore",
    "@lastword/schema-registry",
    "@lastword/topic-config",
  ],
  // Native drivers and the Prisma runtime load files at run time; bundling them breaks that. nodemailer
  // is imported only on the first SMTP send (auth/mail-sender.ts), so it stays a plain Node require.
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "ioredis",
    "@node-rs/crc32",
    "snappy",
    "lz4-napi",
    "nodemailer",
  ],
  // Workspaces hoist dependencies to the repo root; trace and resolve from there.
  outputFileTracingRoot: repoRoot,
  turbopack: {
    root: repoRoot,
    // The API imports the log store for its clock only; the web never opens a log, so the
    // log store's computed file paths need no tracing (we do not ship `output: "standalone"`).
    ignoreIssue: [{ path: "**/packages/logstore/src/**", title: /Dynamic filesystem access/ }],
  },
  // `npm test` type-checks every workspace with tsc before building; doing it again here only costs time.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  // Turbopack keeps its build cache in .next/cache for the next build on this checkout; CI builds a
  // clean clone once, where writing it only costs time (~27 s of a 2-core machine's build).
  // biome-ignore lint/style/noProcessEnv: Next loads this file before any env module of ours; CI is the CI runner's own flag.
  experimental: { turbopackFileSystemCacheForBuild: process.env.CI !== "true" },
});

export default config;
