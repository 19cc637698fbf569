import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RegistryError, SchemaRegistry } from "../src/index";
import { ADDRESS_REFERENCES, ADDRESS_SCHEMA, recordUsingAddress } from "./avro-references.fixture";
import { MemoryLog } from "./memory-log";

const avro = (fields: unknown[]) => JSON.stringify({ type: "record", name: "User", fields });
const V1 = avro([{ name: "id", type: "string" }]);
const V2 = avro([
  { name: "id", type: "string" },
  { name: "age", type: "int", default: 0 },
]);
const BREAKING = avro([{ name: "id", type: "int" }]);
const input = (schema: string) => ({ schema, schemaType: "AVRO" as const, references: [] });

async function refusal(promise: Promise<unknown>): Promise<RegistryError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RegistryError);
  return error as RegistryError;
}

describe("SchemaRegistry over its log", () => {
  it("gives one id per schema across subjects, versions per subject, and re-registering is a no-op", async () => {
    const registry = new SchemaRegistry(new MemoryLog());
    expect(await registry.register("a-value", input(V1))).toEqual({ id: 1, version: 1 });
    expect(await registry.register("a-value", input(V2))).toEqual({ id: 2, version: 2 });
    expect(await registry.register("b-value", input(V1))).toEqual({ id: 1, version: 1 });
    // Whitespace does not make another schema.
    expect(await registry.register("a-value", input(` ${V1.replace(",", ", ")}`))).toEqual({
      id: 1,
      version: 1,
    });
  });

  it("refuses an incompatible schema with 409 and the reason, and writes nothing", async () => {
    const log = new MemoryLog();
    const registry = new SchemaRegistry(log);
    await registry.register("s", input(V1));
    const before = log.records.length;
    const error = await refusal(registry.register("s", input(BREAKING)));
    expect(error.errorCode).toBe(409);
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/incompatible with an earlier schema for subject "s".*TYPE_MISMATCH/);
    expect(log.records.length).toBe(before);
    await registry.setCompatibility("s", "NONE");
    expect(await registry.register("s", input(BREAKING))).toEqual({ id: 2, version: 2 });
  });

  it("deletes softly first, then permanently, and never reuses an id", async () => {
    const registry = new SchemaRegistry(new MemoryLog());
    await registry.register("s", input(V1));
    expect((await refusal(registry.deleteVersion("s", 1, true))).errorCode).toBe(40407);
    expect(await registry.deleteVersion("s", 1, false)).toBe(1);
    expect((await refusal(registry.deleteVersion("s", 1, false))).errorCode).toBe(40406);
    expect((await refusal(registry.deleteSubject("s", false))).errorCode).toBe(40404);
    expect(await registry.deleteSubject("s", true)).toEqual([1]);
    expect((await refusal(registry.deleteSubject("s", true))).errorCode).toBe(40401);
    expect(await registry.register("s", input(V2))).toEqual({ id: 2, version: 1 });
    expect(await registry.register("t", input(V1))).toEqual({ id: 3, version: 1 });
  });

  it("READONLY refuses writes with 42205; IMPORT keeps given ids and needs an empty registry unless forced", async () => {
    const registry = new SchemaRegistry(new MemoryLog());
    await registry.register("s", input(V1));
    await registry.setMode("s", "READONLY");
    expect((await refusal(registry.register("s", input(V2)))).errorCode).toBe(42205);
    expect((await refusal(registry.setMode(null, "IMPORT"))).errorCode).toBe(42205);
    await registry.setMode(null, "IMPORT", true);
    expect(await registry.register("imported", { ...input(V2), id: 100, version: 7 })).toEqual({
      id: 100,
      version: 7,
    });
    await registry.setMode(null, "READWRITE");
    expect(await registry.register("next", input(avro([{ name: "x", type: "long" }])))).toEqual({
      id: 101,
      version: 1,
    });
    expect((await refusal(registry.register("next", { ...input(V1), id: 5 }))).errorCode).toBe(42205);
  });

  it("resolves references and refuses to delete a referenced version (42206)", async () => {
    const registry = new SchemaRegistry(new MemoryLog());
    await registry.register("address", input(ADDRESS_SCHEMA));
    const user = recordUsingAddress("User");
    const references = ADDRESS_REFERENCES;
    expect(await registry.register("user", { schema: user, schemaType: "AVRO", references })).toEqual({
      id: 2,
      version: 1,
    });
    expect(
      (await refusal(registry.register("other", { schema: user, schemaType: "AVRO", references: [] })))
        .errorCode,
    ).toBe(42201);
    expect((await refusal(registry.deleteVersion("address", 1, false))).errorCode).toBe(42206);
  });

  it("a second registry over the same log, also after compaction, holds the same state (fast-check)", async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("register" as const),
        subject: fc.constantFrom("a", "b", "c"),
        field: fc.integer({ min: 0, max: 5 }),
      }),
      fc.record({
        kind: fc.constant("delete" as const),
        subject: fc.constantFrom("a", "b", "c"),
        permanent: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const log = new MemoryLog();
        const writer = new SchemaRegistry(log);
        await writer.setCompatibility(null, "NONE");
        for (const o of ops) {
          const done =
            o.kind === "register"
              ? writer.register(o.subject, input(avro([{ name: `f${o.field}`, type: "string" }])))
              : writer.deleteSubject(o.subject, o.permanent);
          await done.catch((e: unknown) => expect(e).toBeInstanceOf(RegistryError));
        }
        const state = await writer.current();
        const view = (s: typeof state) =>
          JSON.stringify([...s.subjects].map(([k, v]) => [k, [...v.entries()]]).sort());
        const reader = new SchemaRegistry(log);
        expect(view(await reader.current())).toEqual(view(state));
        log.compact();
        const cold = new SchemaRegistry(log);
        expect(view(await cold.current())).toEqual(view(state));
        expect((await cold.current()).nextId()).toBe(state.nextId());
      }),
      { numRuns: 60 },
    );
  });
});
