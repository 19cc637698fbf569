import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const config: NextConfig = {
  // Our workspace packages export TypeScript source, so Next compiles them with the app.
  transpilePackages: [
    "@lastword/api",
    "@lastword/dataplane",
    "@lastword/db",
    "@lastword/erasure",
    "@lastword/logstore",
  ],
  // Native drivers and the Prisma runtime load files at run time; bundling them breaks that. nodemailer
  // is imported only on the first SMTP send (auth/mail-sender.ts), so it stays a plain Node require.
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "ioredis",
    "@node-rs/crc32",
    "nodemailer",
  ],
  // Workspaces hoist dependencies to the repo root; trace and resolve from there.
  outputFileTracingRoot: repoRoot,
  turbopack: {
    root: repoRoot,
    // The API imports the log store for its config rules only; the web never opens a log, so the
    // log store's computed file paths need no tracing (we do not ship `output: "standalone"`).
    ignoreIssue: [{ path: "**/packages/logstore/src/**", title: /Dynamic filesystem access/ }],
  },
  // `npm test` type-checks every workspace with tsc before building; doing it again here only costs time.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
};

export default config;
