// Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes the schema as of the
// last committed migration to the current prisma/schema.prisma.
// Prisma 7's `migrate dev` needs a schema-engine binary our machines cannot download; Prisma 6.19's
// WASM "js" engine can still diff two schema files without a database, so we use it for this one job
// (see shared/reference/prisma-offline.md). Review the SQL before committing it.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration:new -- <snake_case_name>");
  process.exit(2);
}

function schemaAtLastMigration() {
  const rev = execFileSync("git", ["log", "-1", "--format=%H", "--", "prisma/migrations"], { cwd: root })
    .toString()
    .trim();
  if (!rev) return "";
  return execFileSync("git", ["show", `${rev}:prisma/schema.prisma`], { cwd: root }).toString();
}

// Prisma 6 needs a url in the datasource block and knows nothing of Prisma 7's generator options.
function forPrisma6(schema) {
  return schema
    .replace(/generator\s+\w+\s*\{[^}]*\}/g, "")
    .replace(
      /datasource\s+db\s*\{[^}]*\}/,
      'datasource db {\n  provider = "postgresql"\n  url = "postgresql://unused"\n}',
    );
}

const work = mkdtempSync(join(tmpdir(), "lastword-diff-"));
try {
  const to = join(work, "to.prisma");
  writeFileSync(to, forPrisma6(readFileSync(join(root, "prisma/schema.prisma"), "utf8")));
  const previous = schemaAtLastMigration();
  const fromArgs = previous ? ["--from-schema-datamodel", join(work, "from.prisma")] : ["--from-empty"];
  if (previous) writeFileSync(join(work, "from.prisma"), forPrisma6(previous));
  // biome-ignore lint/style/noProcessEnv: a developer tool run with plain node (no TypeScript env.ts); it hands DATABASE_URL to the Prisma 6 CLI it starts.
  const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  writeFileSync(
    join(work, "prisma.config.ts"),
    `import { PrismaPg } from "@prisma/adapter-pg";
export default { experimental: { adapter: true }, engine: "js", schema: "to.prisma",
  adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(databaseUrl)} }) };\n`,
  );
  const bin = join(root, "node_modules/prisma6/build/index.js");
  const env = {
    // biome-ignore lint/style/noProcessEnv: passed on unchanged to the Prisma 6 CLI (see above).
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
    NODE_PATH: join(root, "node_modules"),
  };
  const out = spawnSync(
    process.execPath,
    [bin, "migrate", "diff", ...fromArgs, "--to-schema-datamodel", to, "--script"],
    { cwd: work, env, encoding: "utf8" },
  );
  if (out.status !== 0) {
    console.error(out.stderr || out.stdout);
    process.exit(1);
  }
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const dir = join(root, "prisma/migrations", `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "migration.sql"), out.stdout);
  console.log(`wrote ${join("prisma/migrations", `${stamp}_${name}`, "migration.sql")}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
