import { appRouter, openApiDocument } from "@lastword/api";
import { describe, expect, it } from "vitest";
import { operationsByTag } from "./openapi-operations";

describe("operationsByTag", () => {
  it("lists every operation of the served OpenAPI document once, under its tag", () => {
    const document = openApiDocument(appRouter, "http://localhost:3000");
    const paths = document.paths as Record<string, Record<string, unknown>>;
    const groups = operationsByTag(paths);
    const listed = [...groups.values()].flat();
    const expected = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(listed.map((op) => `${op.method} ${op.path}`).sort()).toEqual(expected.sort());
    const produce = listed.find((op) => op.method === "POST" && op.path === "/topics/{topic}/records");
    expect(produce).toMatchObject({ tag: "records", hasBody: true });
    expect(produce?.parameters).toContainEqual({ name: "topic", in: "path", required: true });
  });
});
