// Prisma 7's CLI wants its schema-engine binary even for `generate`, and that download host is
// unreachable on our machines; generation itself only needs the bundled WASM, so any existing file
// satisfies the check (see DEVELOPERS.md).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_QUERY_ENGINE_LIBRARY ??= process.execPath;
const result = spawnSync("npx", ["--no-install", "prisma", "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
