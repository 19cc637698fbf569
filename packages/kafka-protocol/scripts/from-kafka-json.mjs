// Transcribes one API's Kafka message definitions (apache/kafka
// clients/src/main/resources/common/message/<Name>{Request,Response}.json) into our schema table
// format, so field lists and version ranges are taken from the source rather than retyped.
// Usage: node scripts/from-kafka-json.mjs <dir-with-json> <ApiName> <kafka-commit> > src/messages/<api>.ts
// Review the output: it is a starting point for a hand-checked file, not a build step.
import fs from "node:fs";
import path from "node:path";

const [dir, api, commit = "unknown"] = process.argv.slice(2);
if (!dir || !api) throw new Error("usage: from-kafka-json.mjs <dir> <ApiName> [commit]");

function load(kind) {
  const text = fs.readFileSync(path.join(dir, `${api}${kind}.json`), "utf8");
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""));
}

const lowerCamel = (name) => name[0].toLowerCase() + name.slice(1);
const elementType = (type) => (type.startsWith("[]") ? type.slice(2) : type);
const isStruct = (field) => Array.isArray(field.fields);

function defaultLiteral(field) {
  const raw = field.default;
  if (raw === undefined) return undefined;
  if (raw === "null") return "null";
  const type = elementType(field.type);
  if (type === "bool") return String(raw === true || raw === "true");
  if (type === "string") return JSON.stringify(raw);
  if (type === "int64") return `${BigInt(raw)}n`;
  return String(Number(raw));
}

function fieldSource(field, indent) {
  const parts = [
    `name: "${lowerCamel(field.name)}"`,
    `type: "${field.type}"`,
    `versions: "${field.versions}"`,
  ];
  if (field.nullableVersions) parts.push(`nullableVersions: "${field.nullableVersions}"`);
  if (field.taggedVersions) parts.push(`taggedVersions: "${field.taggedVersions}"`, `tag: ${field.tag}`);
  if (field.flexibleVersions) parts.push(`flexibleVersions: "${field.flexibleVersions}"`);
  const dflt = defaultLiteral(field);
  if (dflt !== undefined) parts.push(`default: ${dflt}`);
  if (!isStruct(field)) return `${indent}{ ${parts.join(", ")} },`;
  const nested = field.fields.map((f) => fieldSource(f, `${indent}    `)).join("\n");
  return `${indent}{\n${indent}  ${parts.join(", ")},\n${indent}  fields: [\n${nested}\n${indent}  ],\n${indent}},`;
}

const request = load("Request");
const response = load("Response");
for (const key of ["apiKey", "validVersions", "flexibleVersions"]) {
  if (request[key] !== response[key]) throw new Error(`${api}: request and response differ in ${key}`);
}
if (request.commonStructs || response.commonStructs) throw new Error(`${api}: commonStructs not handled`);
const name = lowerCamel(api);
const out = `import type { ApiSchema } from "../schema-types";

/** ${api} (key ${request.apiKey}): apache/kafka ${commit} clients/src/main/resources/common/message/${api}{Request,Response}.json. */
export const ${name} = {
  apiKey: ${request.apiKey},
  name: "${api}",
  validVersions: "${request.validVersions}",
  flexibleVersions: "${request.flexibleVersions}",
  request: [
${request.fields.map((f) => fieldSource(f, "    ")).join("\n")}
  ],
  response: [
${response.fields.map((f) => fieldSource(f, "    ")).join("\n")}
  ],
} as const satisfies ApiSchema;
`;
process.stdout.write(out.replace(/\[\n\s*\n\s*\]/g, "[]"));
