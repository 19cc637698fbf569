// Transcribes one API's Kafka message definitions (apache/kafka
// clients/src/main/resources/common/message/<Name>{Request,Response}.json) into our schema format
// (schemas/<api>.json), so field lists and version ranges are taken from the source rather than retyped.
// Usage: node scripts/from-kafka-json.mjs <dir-with-json> <ApiName> <kafka-commit> > schemas/<api-name>.json
// Review the output, then `npm run generate`: it is a starting point for a hand-checked file.
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

function defaultValue(field) {
  const raw = field.default;
  if (raw === undefined || raw === "null") return raw === undefined ? undefined : null;
  const type = elementType(field.type);
  if (type === "bool") return raw === true || raw === "true";
  if (type === "string") return String(raw);
  // int64 stays exact: a number while it is safe, else the decimal string (the generator makes both bigint).
  if (type === "int64") return Number.isSafeInteger(Number(raw)) ? Number(raw) : String(BigInt(raw));
  return Number(raw);
}

function transcribe(field) {
  const out = { name: lowerCamel(field.name), type: field.type, versions: field.versions };
  if (field.nullableVersions) out.nullableVersions = field.nullableVersions;
  if (field.taggedVersions) Object.assign(out, { taggedVersions: field.taggedVersions, tag: field.tag });
  if (field.flexibleVersions) out.flexibleVersions = field.flexibleVersions;
  const dflt = defaultValue(field);
  if (dflt !== undefined) out.default = dflt;
  if (isStruct(field)) out.fields = field.fields.map(transcribe);
  return out;
}

const request = load("Request");
const response = load("Response");
for (const key of ["apiKey", "validVersions", "flexibleVersions"]) {
  if (request[key] !== response[key]) throw new Error(`${api}: request and response differ in ${key}`);
}
if (request.commonStructs || response.commonStructs) throw new Error(`${api}: commonStructs not handled`);
const schema = {
  kafkaCommit: commit,
  apiKey: request.apiKey,
  name: api,
  validVersions: request.validVersions,
  flexibleVersions: request.flexibleVersions,
  request: request.fields.map(transcribe),
  response: response.fields.map(transcribe),
};
// `npx biome format --write` afterwards folds short fields onto one line.
process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
