import { describe, expect, it } from "vitest";
import { schemaLines, sideBySide } from "./schema-diff";

describe("schema versions side by side", () => {
  it("lines up unchanged, changed, added and removed lines of two indented schemas", () => {
    const v1 = schemaLines('{"type":"record","name":"U","fields":[{"name":"a","type":"int"}]}', "AVRO");
    const v2 = schemaLines(
      '{"type":"record","name":"U","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}',
      "AVRO",
    );
    const rows = sideBySide(v1, v2);
    expect(rows.filter((r) => r.change === "same").length).toBeGreaterThan(3);
    expect(rows.some((r) => r.left?.includes('"int"') && r.right?.includes('"long"'))).toBe(true);
    expect(
      rows
        .filter((r) => r.change !== "same")
        .map((r) => r.right)
        .join("\n"),
    ).toContain('"b"');
    expect(sideBySide(v1, v1).every((r) => r.change === "same")).toBe(true);
  });

  it("keeps Protobuf text as written", () => {
    expect(schemaLines('  syntax = "proto3";\n', "PROTOBUF")).toBe('syntax = "proto3";');
  });
});
