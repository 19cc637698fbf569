import protobuf from "protobufjs";
import { invalidSchema } from "../registry-error";
import { canonicalText } from "./canonical";
import { compareProtobufSchemas } from "./protobuf-diff";
import type { Incompatibility, ParsedSchema, ResolvedReference, SchemaFormat } from "./schema-format";

export interface ProtobufHandle {
  root: protobuf.Root;
  packageName: string;
  /** The file's own top-level messages and enums, in declaration order (the wire format's message indexes). */
  types: readonly protobuf.ReflectionObject[];
}

const PARSE_OPTIONS = { keepCase: true, alternateCommentMode: true } as const;

function parseInto(text: string, root: protobuf.Root, what: string): protobuf.IParserResult {
  try {
    return protobuf.parse(text, root, PARSE_OPTIONS);
  } catch (error) {
    throw invalidSchema(`${what} does not parse (${(error as Error).message})`);
  }
}

/**
 * Protobuf through protobufjs: references are the files a schema imports (by the import's path),
 * parsed into the same root; Google's well-known types come with protobufjs.
 */
function parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema<ProtobufHandle> {
  const root = new protobuf.Root();
  const names = new Set<string>();
  for (const ref of references) {
    parseInto(ref.schema, root, `referenced schema "${ref.name}"`);
    names.add(ref.name);
  }
  const own = parseInto(schema, new protobuf.Root(), "the schema");
  for (const path of own.imports ?? []) {
    if (names.has(path)) continue;
    const known = protobuf.common.get(path);
    if (!known) throw invalidSchema(`import "${path}" is neither a reference nor a well-known type`);
    root.addJSON((known as { nested: Record<string, protobuf.AnyNestedObject> }).nested);
  }
  const result = parseInto(schema, root, "the schema");
  try {
    root.resolveAll();
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
  const packageName = result.package ?? "";
  const scope = packageName ? root.lookup(packageName) : root;
  const ownNames = new Set(Object.keys(namespaceOf(own.root, packageName)?.nested ?? {}));
  const types = (scope as protobuf.Namespace).nestedArray.filter(
    (t) => ownNames.has(t.name) && (t instanceof protobuf.Type || t instanceof protobuf.Enum),
  );
  const canonical = canonicalText("PROTOBUF", schema);
  return {
    schemaType: "PROTOBUF",
    canonical,
    normalized: schema.trim(),
    handle: { root, packageName, types },
  };
}

function namespaceOf(root: protobuf.Root, packageName: string): protobuf.Namespace | null {
  const found = packageName ? root.lookup(packageName) : root;
  return found instanceof protobuf.Namespace ? found : null;
}

/**
 * Confluent's Protobuf diff with the writer's file as the original: a reader of the new file reads
 * the old file's data unless a difference outside its compatible set says otherwise.
 */
function readIssues(
  reader: ParsedSchema<ProtobufHandle>,
  writer: ParsedSchema<ProtobufHandle>,
): Incompatibility[] {
  return compareProtobufSchemas(writer.handle, reader.handle);
}

export const protobufFormat: SchemaFormat<ProtobufHandle> = { schemaType: "PROTOBUF", parse, readIssues };
