import protobuf from "protobufjs";
import type { SchemaType } from "../compatibility-level";
import { sortedJson } from "./schema-format";

/**
 * The text two registrations of "the same schema" share, without resolving references: Avro and
 * JSON Schema documents re-serialised (whitespace gone, key order kept, as Confluent's canonical
 * string), a Protobuf file as its parsed descriptor. Text that does not parse stands for itself.
 */
export function canonicalText(schemaType: SchemaType, text: string): string {
  try {
    if (schemaType !== "PROTOBUF") return JSON.stringify(JSON.parse(text));
    const parsed = protobuf.parse(text, new protobuf.Root(), { keepCase: true, alternateCommentMode: true });
    return sortedJson({
      package: parsed.package ?? "",
      imports: parsed.imports ?? [],
      types: parsed.root.toJSON(),
    });
  } catch {
    return text;
  }
}
