import { createRequire } from "node:module";
import { build } from "esbuild";

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
    target: "node20",
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
