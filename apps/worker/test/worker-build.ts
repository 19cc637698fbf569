import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

// The integration project's global setup: the worker bundled once per run, so the tests that start
// it as a process (`node <bundle>`, as production runs a build) skip tsx's load of several hundred
// TypeScript modules, seconds on a loaded machine, every time. Test harnesses read the bundle's
// path from LASTWORD_TEST_WORKER_BUNDLE and fall back to `node --import tsx` without it (benches,
// scripts).

const appRoot = fileURLToPath(new URL("../", import.meta.url));

/**
 * Bundles `src/main.ts` and the inflate pool's task into `dist/` (the depth of `src/`, so the
 * paths the worker resolves from its own module, the repository root and Prisma's migrations,
 * stay the same). Only our workspace packages are bundled; every dependency from npm stays an
 * import Node resolves, as under tsx. Written beside and renamed into place, so a run that starts
 * a worker meanwhile reads a whole file.
 */
export async function bundleWorker(): Promise<string> {
  const outdir = join(appRoot, "dist");
  const staging = join(outdir, `.staging-${randomBytes(4).toString("hex")}`);
  mkdirSync(staging, { recursive: true });
  await build({
    entryPoints: {
      main: join(appRoot, "src/main.ts"),
      "inflate-task": join(appRoot, "src/inflation/inflate-task.ts"),
    },
    outdir: staging,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    logLevel: "error",
    plugins: [
      {
        name: "npm-dependencies-external",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@lastword/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  // The task first: a worker started from the new main must find its task.
  renameSync(join(staging, "inflate-task.mjs"), join(outdir, "inflate-task.mjs"));
  renameSync(join(staging, "main.mjs"), join(outdir, "main.mjs"));
  rmSync(staging, { recursive: true, force: true });
  return join(outdir, "main.mjs");
}

export default async function setup(): Promise<void> {
  process.env.LASTWORD_TEST_WORKER_BUNDLE = await bundleWorker();
}
