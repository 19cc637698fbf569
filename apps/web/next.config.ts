import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const config: NextConfig = {
  // Our workspace packages export TypeScript source, so Next compiles them with the app.
  transpilePackages: ["@lastword/api", "@lastword/dataplane", "@lastword/db", "@lastword/logstore"],
  // Native drivers and the Prisma runtime load files at run time; bundling them breaks that.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", "pg", "ioredis"],
  // Workspaces hoist dependencies to the repo root; trace and resolve from there.
  outputFileTracingRoot: repoRoot,
  turbopack: { root: repoRoot },
  // `npm test` type-checks every workspace with tsc before building; doing it again here only costs time.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
};

export default config;
