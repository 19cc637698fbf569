import fs from "node:fs";
import { describe, expect, it } from "vitest";
import {
  generatedFile,
  readSchemaFiles,
  renderSchemaModule,
  SchemaFileError,
} from "../scripts/generate-schemas";
import { ApiKey, apiSchemas } from "../src/index";

const heartbeat = {
  kafkaCommit: "1eb7644",
  apiKey: 12,
  name: "Heartbeat",
  validVersions: "0-4",
  flexibleVersions: "4+",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    { name: "epoch", type: "int64", versions: "1+", default: -1 },
  ],
  response: [{ name: "errorCode", type: "int16", versions: "0+" }],
};

function render(files: Record<string, unknown>): string {
  const texts = Object.entries(files).map(([name, value]) => [name, JSON.stringify(value)] as const);
  return renderSchemaModule(new Map(texts));
}

describe("schema generator", () => {
  it("the generated module is current with schemas/*.json (run `npm run generate` after editing them)", () => {
    expect(fs.readFileSync(generatedFile, "utf8")).toBe(renderSchemaModule(readSchemaFiles()));
  });

  it("every JSON file is one API in the tables, keyed by its apiKey", () => {
    const files = [...readSchemaFiles().keys()];
    expect(Object.keys(apiSchemas)).toHaveLength(files.length);
    expect(Object.keys(ApiKey)).toHaveLength(files.length);
    expect(apiSchemas[ApiKey.Heartbeat].name).toBe("Heartbeat");
  });

  it("int64 defaults become bigint literals, other defaults stay as written", () => {
    const source = render({ "heartbeat.json": heartbeat });
    expect(source).toContain('{ name: "epoch", type: "int64", versions: "1+", default: -1n },');
    expect(source).toContain("export const heartbeat = {");
    expect(source).toContain("Heartbeat: 12,");
    expect(source).toContain("12: heartbeat,");
  });

  it.each([
    ["a misspelt key", { ...heartbeat, flexibleVersion: "4+" }, /flexibleVersion/],
    [
      "a bad version range",
      { ...heartbeat, request: [{ name: "groupId", type: "string", versions: "v0" }] },
      /version range/,
    ],
    [
      "a struct without fields",
      { ...heartbeat, request: [{ name: "topics", type: "[]Topic", versions: "0+" }] },
      /needs "fields"/,
    ],
    [
      "a tag without taggedVersions",
      { ...heartbeat, request: [{ name: "groupId", type: "string", versions: "0+", tag: 0 }] },
      /go together/,
    ],
    [
      "a fractional int64 default",
      { ...heartbeat, request: [{ name: "epoch", type: "int64", versions: "0+", default: 1.5 }] },
      /int64 default/,
    ],
  ])("rejects %s, naming the file", (_case, schema, message) => {
    expect(() => render({ "heartbeat.json": schema })).toThrow(SchemaFileError);
    expect(() => render({ "heartbeat.json": schema })).toThrow(message);
    expect(() => render({ "heartbeat.json": schema })).toThrow(/^heartbeat\.json:/);
  });

  it("rejects a file named for another API, two files with one key, and text that is not JSON", () => {
    expect(() => render({ "beat.json": heartbeat })).toThrow(/lives in heartbeat\.json/);
    expect(() =>
      render({ "heartbeat.json": heartbeat, "sync-group.json": { ...heartbeat, name: "SyncGroup" } }),
    ).toThrow(/sync-group\.json: API key 12 is already Heartbeat's/);
    expect(() => renderSchemaModule(new Map([["heartbeat.json", "{"]]))).toThrow(/heartbeat\.json: not JSON/);
  });
});
