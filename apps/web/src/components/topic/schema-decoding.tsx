"use client";

import { useConsoleAccess } from "@/lib/console-access";
import type { BrowsedRecord } from "@/lib/record-export";
import { Badge } from "../ui/badge";

type SchemaNote = NonNullable<NonNullable<BrowsedRecord["schemas"]>["value"]>;

/**
 * Whether the message browser asks the server to decode Confluent-framed keys and values with the
 * schema registry (records.search `decode`): only for members who may read the registry.
 */
export function useSchemaDecoding(): boolean {
  return useConsoleAccess().can("schemas:read");
}

/**
 * Under a decoded key or value: the schema that decoded it (type, subject, version, id). When the
 * bytes were framed but did not decode, why — the cell above then shows the raw bytes.
 */
export function SchemaLabel({ note }: { note: SchemaNote | undefined }) {
  if (!note) return null;
  if ("error" in note && note.error !== undefined) {
    return (
      <span className="mt-1 block text-xs text-danger">
        Schema {note.id}: raw bytes shown ({note.error})
      </span>
    );
  }
  const version = note.subject ? `${note.subject} v${note.version}` : "no subject";
  return (
    <span className="mt-1 block">
      <Badge tone="accent">
        {note.schemaType} · {version} · id {note.id}
      </Badge>
    </span>
  );
}
