import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The layer rules live in biome.json (noRestrictedImports per package, noProcessEnv, noImportCycles
// counting type-only imports too, and the GritQL plugins in biome-plugins/, the worker's and the
// api's folder orders among them), so `npm run lint`
// (`biome ci .`, the first step of `npm test`) is what enforces them. Here each rule meets a planted
// violation in the package it guards, and one `biome ci` over the planted files, the lint command
// itself, has to fail naming that rule. The plants go into a temporary directory holding the
// repository's lint configuration (biome.json, its plugins, .gitignore) at the same paths, never
// into the source tree.
const root = fileURLToPath(new URL("..", import.meta.url));
const LINT_CONFIG = ["biome.json", "biome-plugins", ".gitignore"];

interface Plant {
  rule: string;
  path: string;
  source: string;
  /** A phrase of the diagnostic, so the failure is this rule's and not another's. */
  says: string;
}

const violations: Plant[] = [
  {
    rule: "the log store imports nothing of ours",
    path: "packages/logstore/src/planted.ts",
    source: 'import { createPrisma } from "@lastword/db";\n\nexport const open = createPrisma;\n',
    says: "lint/style/noRestrictedImports",
  },
  {
    rule: "the topic-config catalog is browser-safe",
    path: "packages/topic-config/src/planted.ts",
    source: 'import { readFileSync } from "node:fs";\n\nexport const read = readFileSync;\n',
    says: "packages/topic-config imports nothing of ours and no Node built-in",
  },
  {
    rule: "api never imports next/*",
    path: "packages/api/src/planted.ts",
    source: 'import { NextResponse } from "next/server";\n\nexport const answer = NextResponse;\n',
    says: "packages/api never imports next/*",
  },
  {
    rule: "the worker never imports tRPC",
    path: "apps/worker/src/planted.ts",
    source: 'import { initTRPC } from "@trpc/server";\n\nexport const t = initTRPC;\n',
    says: "The worker never imports tRPC",
  },
  {
    rule: "no package imports an app",
    path: "packages/client/src/planted.ts",
    source: 'import { startWorker } from "@lastword/worker";\n\nexport const start = startWorker;\n',
    says: "No package depends on an app",
  },
  {
    rule: "no package imports a file of an app by a subpath",
    path: "packages/dataplane/src/planted.ts",
    source:
      'import { startWorker } from "@lastword/worker/src/worker";\n\nexport const start = startWorker;\n',
    says: "No package depends on an app",
  },
  {
    rule: "api imports no file of the web app by a subpath",
    path: "packages/api/src/planted-web.ts",
    source: 'import { env } from "@lastword/web/src/env";\n\nexport const read = env;\n',
    says: "No package depends on an app",
  },
  {
    rule: "no relative import out of its package",
    path: "packages/client/src/planted-relative.ts",
    source:
      'import { openApiDocument } from "../../api/src/rest/rest-handler";\n\nexport const doc = openApiDocument;\n',
    says: "Relative import out of its package",
  },
  {
    rule: "no relative import out of an app, however deep the file",
    path: "apps/web/src/app/deep/planted.ts",
    source:
      'import { startWorker } from "../../../../worker/src/worker";\n\nexport const start = startWorker;\n',
    says: "Relative import out of its package",
  },
  {
    rule: "no package depends on an app in its package.json",
    path: "packages/planted/package.json",
    source: `${JSON.stringify({ name: "@lastword/planted", devDependencies: { "@lastword/worker": "*" } }, null, 2)}\n`,
    says: "A package depends on an app",
  },
  {
    rule: "no computed imports",
    path: "packages/jobs/src/planted.ts",
    source: 'const name = "@lastword/api";\n\nexport const api = await import(name);\n',
    says: "Computed import",
  },
  {
    rule: "console forms are Form, never a bare <form>",
    path: "apps/web/src/components/planted-form.tsx",
    source: 'export function Planted() {\n  return <form aria-label="planted">planted</form>;\n}\n',
    says: "Bare <form>",
  },
  {
    rule: "no import cycles (one side)",
    path: "packages/logstore/src/planted-cycle-a.ts",
    source: 'import { b } from "./planted-cycle-b";\n\nexport const a = () => b;\n',
    says: "lint/suspicious/noImportCycles",
  },
  {
    rule: "no import cycles (the other side)",
    path: "packages/logstore/src/planted-cycle-b.ts",
    source: 'import { a } from "./planted-cycle-a";\n\nexport const b = () => a;\n',
    says: "lint/suspicious/noImportCycles",
  },
  {
    // Type-only imports vanish at runtime but still tangle the graph (as kafka-context ↔ test-faults did).
    rule: "no import cycles through type-only imports",
    path: "apps/worker/src/kafka/planted-context.ts",
    source: 'import type { Hook } from "./planted-hook";\n\nexport interface Context {\n  hook: Hook;\n}\n',
    says: "lint/suspicious/noImportCycles",
  },
  {
    rule: "no import cycles through type-only imports (the other side)",
    path: "apps/worker/src/kafka/planted-hook.ts",
    source:
      'import type { Context } from "./planted-context";\n\nexport type Hook = (ctx: Context) => void;\n',
    says: "lint/suspicious/noImportCycles",
  },
  {
    // The write path lives in hosting/; borrowing the HTTP adapter's handler from below is what it replaced.
    rule: "worker folder order: hosting imports no room above it",
    path: "apps/worker/src/hosting/planted-order.ts",
    source:
      'import { fetchRecords } from "../dataplane/dataplane-handlers";\n\nexport const read = fetchRecords;\n',
    says: "Worker folder order: hosting/ imports only ownership/",
  },
  {
    rule: "worker folder order: the data plane never imports the Kafka entry point",
    path: "apps/worker/src/dataplane/planted-order.ts",
    source:
      'import type { KafkaBrokerContext } from "../kafka/kafka-context";\n\nexport type Context = KafkaBrokerContext;\n',
    says: "Worker folder order: the data plane's HTTP entry point never imports the Kafka one",
  },
  {
    rule: "worker folder order: a room imports no room above it, however deep the file",
    path: "apps/worker/src/ownership/deep/planted-order.ts",
    source: 'import { CleanerPass } from "../../cleaner/cleaner-pass";\n\nexport const pass = CleanerPass;\n',
    says: "Worker folder order: ownership/ is the bottom room",
  },
  {
    rule: "worker folder order: no room imports the composition root",
    path: "apps/worker/src/kafka/groups/planted-order.ts",
    source: 'import { startWorker } from "../../worker";\n\nexport const start = startWorker;\n',
    says: "Worker folder order: a room imports the composition root",
  },
  {
    rule: "api folder order: services never import tRPC",
    path: "packages/api/src/services/planted-order.ts",
    source:
      'import type { RequestContext } from "../trpc/context";\n\nexport type Context = RequestContext;\n',
    says: "Api folder order: the business layer (services/, schema-registry/) never imports a transport",
  },
  {
    rule: "api folder order: services never import a procedure's schema",
    path: "packages/api/src/services/planted-schema.ts",
    source:
      'import { getTopicInput } from "../procedures/topics/get-topic.schema";\n\nexport const input = getTopicInput;\n',
    says: "Api folder order: the business layer (services/, schema-registry/) never imports a transport",
  },
  {
    rule: "api folder order: auth never imports services",
    path: "packages/api/src/auth/planted-order.ts",
    source:
      'import { createTenantForUser } from "../services/tenant.service";\n\nexport const create = createTenantForUser;\n',
    says: "Api folder order: auth/ sits below the business layer",
  },
  {
    rule: "api folder order: http never imports rest",
    path: "packages/api/src/http/planted-order.ts",
    source:
      'import { createRestHandler } from "../rest/rest-handler";\n\nexport const handler = createRestHandler;\n',
    says: "Api folder order: http/ imports only errors/ and cache/",
  },
  {
    rule: "process.env only in env.ts",
    path: "packages/db/src/planted.ts",
    source: "export const url = process.env.DATABASE_URL;\n",
    says: "lint/style/noProcessEnv",
  },
];

/**
 * Allowed: the same read inside an env.ts, a relative import that climbs but stays in its package,
 * and an import that goes one way only.
 */
const allowed: Plant[] = [
  {
    rule: "process.env in an env.ts",
    path: "packages/db/src/planted/env.ts",
    source: "export const url = process.env.DATABASE_URL;\n",
    says: "",
  },
  {
    rule: "a relative import within its package",
    path: "packages/client/src/planted/deep/inner.ts",
    source: 'import { fixture } from "../../../test/planted-fixture";\n\nexport const used = fixture;\n',
    says: "",
  },
  {
    rule: "an import one way only (no cycle)",
    path: "packages/logstore/src/planted-down.ts",
    source: 'import { leaf } from "./planted-leaf";\n\nexport const down = () => leaf;\n',
    says: "",
  },
  {
    rule: "the module it imports (no cycle)",
    path: "packages/logstore/src/planted-leaf.ts",
    source: "export const leaf = 1;\n",
    says: "",
  },
  {
    rule: "worker folder order: Kafka imports the write path below it",
    path: "apps/worker/src/kafka/planted-down.ts",
    source: 'import { produce } from "../hosting/write-path";\n\nexport const write = produce;\n',
    says: "",
  },
  {
    rule: "api folder order: a procedure imports the input schema its service owns",
    path: "packages/api/src/procedures/topics/planted-down.ts",
    source:
      'import { topicNameSchema } from "../../services/topic.schema";\n\nexport const name = topicNameSchema;\n',
    says: "",
  },
];

const scratch = mkdtempSync(join(tmpdir(), "lastword-layer-rules-"));
let output = "";
let status: number | null = null;

function lint(paths: string[]): { status: number | null; output: string } {
  const biome = join(root, "node_modules/@biomejs/biome/bin/biome");
  const run = spawnSync(process.execPath, [biome, "ci", "--colors=off", "--max-diagnostics=none", ...paths], {
    cwd: scratch,
    encoding: "utf8",
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The diagnostics biome printed for one file: from its header line to the next file's. */
function diagnosticsOf(path: string): string {
  const blocks = output.split(/\n(?=\S+:\d+:\d+ |\S+ \S+ ━)/);
  return blocks.filter((block) => block.startsWith(path)).join("\n");
}

beforeAll(() => {
  for (const name of LINT_CONFIG) cpSync(join(root, name), join(scratch, name), { recursive: true });
  for (const plant of [...violations, ...allowed]) {
    mkdirSync(dirname(join(scratch, plant.path)), { recursive: true });
    writeFileSync(join(scratch, plant.path), plant.source);
  }
  ({ status, output } = lint([...violations, ...allowed].map((plant) => plant.path)));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("layer rules (npm run lint)", () => {
  it("fail the lint command on planted violations, for their rules alone (the files are formatted)", () => {
    expect(status, output).not.toBe(0);
    expect(output).not.toMatch(/ format ━/);
  });

  it.each(violations)("$rule: a planted violation fails, naming the rule", (plant) => {
    const diagnostics = diagnosticsOf(plant.path);
    expect(diagnostics, output).toContain(plant.says);
  });

  it.each(allowed)("$rule: allowed, nothing reported", (plant) => {
    expect(diagnosticsOf(plant.path), output).toBe("");
  });
});
