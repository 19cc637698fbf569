import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";

/**
 * Bundles a crash test's TypeScript child into one CommonJS file: `node child.cjs` starts ~8×
 * faster than `node --import tsx`, which is what lets a test kill hundreds of children. The
 * native bindings (CRC-32C, snappy, lz4) stay external (esbuild cannot bundle a .node file).
 */
export async function bundleChild(entryPoint: string, outfile: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const natives = new Map(
    ["@node-rs/crc32", "snappy", "lz4-napi"].map((name) => [name, require.resolve(name)]),
  );
  await build({
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    logLevel: "error",
    plugins: [
      {
        name: "native-bindings",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^(@node-rs\/crc32|snappy|lz4-napi)$/ }, (args) => ({
            path: natives.get(args.path)!,
            external: true,
          }));
        },
      },
    ],
  });
}

/**
 * The file's bundled child: `entryPoint` is bundled into a fresh directory under `root` in
 * `beforeAll`, and the directory (with whatever the test wrote there) is removed in `afterAll`.
 * Read `dir` and `script` inside hooks and tests.
 */
export function useBundledChild(entryPoint: string, options: { prefix: string; root?: string }) {
  const child = { dir: "", script: "" };
  beforeAll(async () => {
    child.dir = fs.mkdtempSync(path.join(options.root ?? os.tmpdir(), options.prefix));
    child.script = path.join(child.dir, `${path.basename(entryPoint, ".ts")}.cjs`);
    await bundleChild(entryPoint, child.script);
  });
  afterAll(() => {
    fs.rmSync(child.dir, { recursive: true, force: true });
  });
  return child;
}

/** A linear congruential generator, so a crash test's random choices repeat run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
}
