import { createRequire } from "node:module";
import { build } from "esbuild";

/**
 * Bundles a crash test's TypeScript child into one CommonJS file: `node child.cjs` starts ~8×
 * faster than `node --import tsx`, which is what lets a test kill hundreds of children. The
 * native CRC-32C binding stays external (esbuild cannot bundle a .node file).
 */
export async function bundleChild(entryPoint: string, outfile: string): Promise<void> {
  const crc32Path = createRequire(import.meta.url).resolve("@node-rs/crc32");
  await build({
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "error",
    plugins: [
      {
        name: "native-crc32",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^@node-rs\/crc32$/ }, () => ({ path: crc32Path, external: true }));
        },
      },
    ],
  });
}
