// Turns the declarative message schemas (schemas/<api>.json, one file per API) into the typed module
// the codec imports (src/generated/schemas.ts). JSON has no `as const` and no bigint, so the typed
// literal is generated rather than imported: the decoded message types stay inferred from it, and
// int64 defaults become bigint literals. Runs from the root postinstall and before typecheck.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const versions = z.string().regex(/^(none|\d+\+|\d+(-\d+)?)$/, 'a version range: "3+", "0-7", "5" or "none"');
const primitives = new Set([
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint16",
  "uint32",
  "float64",
  "string",
  "bytes",
  "records",
  "uuid",
]);
const elementType = (type: string) => (type.startsWith("[]") ? type.slice(2) : type);

interface FieldJson {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  flexibleVersions?: "none";
  default?: boolean | number | string | null;
  fields?: FieldJson[];
}

const field: z.ZodType<FieldJson> = z
  .strictObject({
    name: z.string().regex(/^[a-z][A-Za-z0-9]*$/, "a lowerCamel field name"),
    type: z.string().regex(/^(\[\])?[A-Za-z][A-Za-z0-9]*$/, "a type, `[]type` or a struct name"),
    versions,
    nullableVersions: versions.optional(),
    taggedVersions: versions.optional(),
    tag: z.int().nonnegative().optional(),
    flexibleVersions: z.literal("none").optional(),
    default: z.union([z.boolean(), z.number(), z.string(), z.null()]).optional(),
    get fields() {
      return z.array(field).optional();
    },
  })
  .superRefine((f, ctx) => {
    const struct = !primitives.has(elementType(f.type));
    if (struct !== (f.fields !== undefined)) {
      ctx.addIssue({
        code: "custom",
        message: struct
          ? `struct type ${f.type} needs "fields"`
          : `primitive type ${f.type} takes no "fields"`,
      });
    }
    if ((f.tag === undefined) !== (f.taggedVersions === undefined)) {
      ctx.addIssue({ code: "custom", message: '"tag" and "taggedVersions" go together' });
    }
    if (f.type === "int64" && f.default !== undefined && f.default !== null) {
      const ok =
        (typeof f.default === "number" && Number.isSafeInteger(f.default)) ||
        (typeof f.default === "string" && /^-?\d+$/.test(f.default));
      if (!ok)
        ctx.addIssue({ code: "custom", message: "an int64 default is a safe integer or a decimal string" });
    }
  });

const apiJson = z.strictObject({
  kafkaCommit: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/, "the apache/kafka commit the schema was transcribed from"),
  apiKey: z.int().nonnegative(),
  name: z.string().regex(/^[A-Z][A-Za-z0-9]*$/, "the PascalCase API name"),
  validVersions: versions,
  flexibleVersions: versions,
  request: z.array(field),
  response: z.array(field),
});
type ApiJson = z.infer<typeof apiJson>;

export class SchemaFileError extends Error {
  override name = "SchemaFileError";
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c, i) => (i === 0 ? "" : "-") + c.toLowerCase());
const lowerCamel = (name: string) => name[0]!.toLowerCase() + name.slice(1);

function fieldLiteral(f: FieldJson, indent: string): string {
  const parts = Object.entries(f)
    .filter(([key]) => key !== "fields")
    .map(([key, value]) => {
      if (key === "default" && f.type === "int64" && value !== null)
        return `default: ${BigInt(value as number)}n`;
      return `${key}: ${JSON.stringify(value)}`;
    });
  if (!f.fields) return `${indent}{ ${parts.join(", ")} },`;
  const nested = f.fields.map((child) => fieldLiteral(child, `${indent}    `)).join("\n");
  return `${indent}{\n${indent}  ${parts.join(", ")},\n${indent}  fields: [\n${nested}\n${indent}  ],\n${indent}},`;
}

function schemaLiteral(api: ApiJson): string {
  const list = (fields: FieldJson[]) => fields.map((f) => fieldLiteral(f, "    ")).join("\n");
  return `/** ${api.name} (key ${api.apiKey}): transcribed from apache/kafka ${api.kafkaCommit} clients/src/main/resources/common/message/${api.name}{Request,Response}.json. */
export const ${lowerCamel(api.name)} = {
  apiKey: ${api.apiKey},
  name: ${JSON.stringify(api.name)},
  validVersions: ${JSON.stringify(api.validVersions)},
  flexibleVersions: ${JSON.stringify(api.flexibleVersions)},
  request: [
${list(api.request)}
  ],
  response: [
${list(api.response)}
  ],
} as const satisfies ApiSchema;
`;
}

/** Parses and checks every file (by file name → text), then renders the module; throws SchemaFileError naming the file and field. */
export function renderSchemaModule(files: ReadonlyMap<string, string>): string {
  const apis: ApiJson[] = [];
  for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new SchemaFileError(`${file}: not JSON (${(error as Error).message})`);
    }
    const parsed = apiJson.safeParse(raw);
    if (!parsed.success) throw new SchemaFileError(`${file}:\n${z.prettifyError(parsed.error)}`);
    const api = parsed.data;
    if (file !== `${kebab(api.name)}.json`) {
      throw new SchemaFileError(`${file}: an API named ${api.name} lives in ${kebab(api.name)}.json`);
    }
    const clash = apis.find((other) => other.apiKey === api.apiKey);
    if (clash) throw new SchemaFileError(`${file}: API key ${api.apiKey} is already ${clash.name}'s`);
    apis.push(api);
  }
  apis.sort((a, b) => a.apiKey - b.apiKey);
  const keys = apis.map((api) => `  ${api.name}: ${api.apiKey},`).join("\n");
  const table = apis.map((api) => `  ${api.apiKey}: ${lowerCamel(api.name)},`).join("\n");
  return `// Generated by scripts/generate-schemas.ts from schemas/*.json: edit those, not this file.
import type { ApiSchema } from "../schema-types";

${apis.map(schemaLiteral).join("\n")}
/** Kafka API keys with a schema in this package. */
export const ApiKey = {
${keys}
} as const;
export type ApiKey = (typeof ApiKey)[keyof typeof ApiKey];

/** The schema table: one entry per API key. */
export const apiSchemas = {
${table}
} as const satisfies Record<ApiKey, ApiSchema>;
`;
}

export const packageDir = fileURLToPath(new URL("..", import.meta.url));
export const schemaDir = path.join(packageDir, "schemas");
export const generatedFile = path.join(packageDir, "src/generated/schemas.ts");

export function readSchemaFiles(dir = schemaDir): Map<string, string> {
  const names = fs.readdirSync(dir).filter((name) => name.endsWith(".json"));
  return new Map(names.map((name) => [name, fs.readFileSync(path.join(dir, name), "utf8")]));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const source = renderSchemaModule(readSchemaFiles());
  // Unchanged output is not rewritten, so parallel typechecks never see a half-written file.
  const current = fs.existsSync(generatedFile) ? fs.readFileSync(generatedFile, "utf8") : undefined;
  if (current !== source) {
    fs.mkdirSync(path.dirname(generatedFile), { recursive: true });
    fs.writeFileSync(generatedFile, source);
  }
}
