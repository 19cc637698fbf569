// Prisma 7's CLI wants its schema-engine binary even for `generate`, and that download host is
// unreachable on our machines; generation itself only needs the bundled WASM, so any existing file
// satisfies the check (see DEVELOPERS.md).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// biome-ignore lint/style/noProcessEnv: npm's postinstall runs this with plain node, before anything could load a TypeScript env.ts; it only passes the environment on to Prisma.
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_QUERY_ENGINE_LIBRARY ??= process.execPath;
// Call Prisma 7 by path: the Prisma 6 alias used for offline diffs also installs a `prisma` bin.
const cli = fileURLToPath(new URL("../node_modules/prisma/build/index.js", import.meta.url));
const result = spawnSync(process.execPath, [cli, "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
