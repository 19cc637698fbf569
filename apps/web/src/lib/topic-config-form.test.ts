import { describe, expect, it } from "vitest";
import {
  AS_RETENTION,
  baseConfigs,
  CONFIG_FIELDS,
  configErrors,
  configsNamedIn,
  editedConfigs,
  erasureCheckOf,
  NEVER,
  resultingConfigs,
  serverFieldErrors,
  sourceOf,
  toInput,
  topicFieldErrors,
  toRaw,
} from "./topic-config-form";

describe("config fields", () => {
  it("lists every config the API accepts with its kind, units and the API's explanation", () => {
    expect(CONFIG_FIELDS.map((field) => field.name)).toContain("min.compaction.lag.ms");
    expect(CONFIG_FIELDS).toHaveLength(21);
    const retention = CONFIG_FIELDS.find((field) => field.name === "retention.ms");
    expect(retention?.kind).toBe("duration");
    expect(retention?.units.map((unit) => unit.value)).toEqual(["ms", "s", "min", "h", "d", NEVER]);
    expect(retention?.doc).toMatch(/-1 = forever/);
    const segment = CONFIG_FIELDS.find((field) => field.name === "segment.ms");
    expect(segment?.units.map((unit) => unit.value)).not.toContain(NEVER);
    const bytes = CONFIG_FIELDS.find((field) => field.name === "segment.bytes");
    expect(bytes?.units.map((unit) => unit.value)).toEqual(["B", "KiB", "MiB", "GiB"]);
    expect(CONFIG_FIELDS.find((field) => field.name === "cleanup.policy")?.choices).toEqual([
      "delete",
      "compact",
      "compact,delete",
    ]);
    expect(CONFIG_FIELDS.find((field) => field.name === "compression.type")).toMatchObject({
      kind: "choice",
      default: "producer",
      choices: ["producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"],
    });
    expect(CONFIG_FIELDS.find((field) => field.name === "lastword.durability")).toMatchObject({
      kind: "choice",
      default: "object",
      choices: ["object", "local"],
    });
  });
});

describe("units", () => {
  it("shows a Kafka value in the largest unit that holds it exactly", () => {
    expect(toInput("retention.ms", "604800000")).toEqual({ amount: "7", unit: "d" });
    expect(toInput("retention.ms", "5400000")).toEqual({ amount: "90", unit: "min" });
    expect(toInput("segment.bytes", "1073741824")).toEqual({ amount: "1", unit: "GiB" });
    expect(toInput("max.message.bytes", "1048588")).toEqual({ amount: "1048588", unit: "B" });
    expect(toInput("min.compaction.lag.ms", "0")).toEqual({ amount: "0", unit: "ms" });
    expect(toInput("min.cleanable.dirty.ratio", "0.5")).toEqual({ amount: "0.5", unit: "" });
  });

  it("calls Kafka's no-limit values never, each in the notation its config allows", () => {
    expect(toInput("retention.ms", "-1")).toEqual({ amount: "", unit: NEVER });
    expect(toInput("max.compaction.lag.ms", "9223372036854775807")).toEqual({ amount: "", unit: NEVER });
    expect(toRaw("retention.ms", { amount: "", unit: NEVER })).toBe("-1");
    expect(toRaw("max.compaction.lag.ms", { amount: "3", unit: NEVER })).toBe("9223372036854775807");
    expect(toRaw("retention.bytes", { amount: "", unit: NEVER })).toBe("-1");
  });

  it("tells local.retention.*'s -2 (as retention.*) from its -1 (no limit)", () => {
    expect(toInput("local.retention.bytes", "-2")).toEqual({ amount: "", unit: AS_RETENTION });
    expect(toInput("local.retention.ms", "-1")).toEqual({ amount: "", unit: NEVER });
    expect(toRaw("local.retention.ms", { amount: "", unit: AS_RETENTION })).toBe("-2");
    expect(toRaw("local.retention.bytes", { amount: "", unit: NEVER })).toBe("-1");
    expect(toRaw("local.retention.bytes", { amount: "1", unit: "GiB" })).toBe(String(1024 ** 3));
  });

  it("turns an amount and unit into Kafka's value, fractions included", () => {
    expect(toRaw("retention.ms", { amount: "2", unit: "h" })).toBe("7200000");
    expect(toRaw("retention.ms", { amount: "1.5", unit: "h" })).toBe("5400000");
    expect(toRaw("segment.ms", { amount: "0.1", unit: "s" })).toBe("100");
    expect(toRaw("segment.bytes", { amount: "64", unit: "MiB" })).toBe("67108864");
    expect(toRaw("segment.ms", { amount: "0.5", unit: "ms" })).toBe("0.5");
    expect(toRaw("retention.ms", { amount: "soon", unit: "h" })).toBe("soon");
    for (const field of CONFIG_FIELDS) {
      const back = toInput(field.name, field.default);
      expect(toRaw(field.name, back), field.name).toBe(field.default);
    }
  });
});

describe("preset and edits", () => {
  it("starts from the preset's values, which the user's edits override", () => {
    const { configs, error } = baseConfigs("gdpr-table", "compact", 30);
    expect(error).toBeNull();
    expect(configs["max.compaction.lag.ms"]).toBe(String(15 * 86_400_000));
    const edits = { "retention.ms": { amount: "3", unit: "h" } };
    expect(sourceOf("max.compaction.lag.ms", "gdpr-table", configs, edits)).toBe("preset");
    expect(sourceOf("retention.ms", "gdpr-table", configs, edits)).toBe("edited");
    expect(sourceOf("segment.ms", "gdpr-table", configs, edits)).toBe("default");
    expect(sourceOf("cleanup.policy", null, baseConfigs(null, "delete", 30).configs, {})).toBe("default");
    expect(editedConfigs(edits)).toEqual({ "retention.ms": "10800000" });
  });

  it("says why a preset cannot apply, in the API's words", () => {
    expect(baseConfigs("gdpr-table", "compact", 1).error).toBe(
      "The tenant's erasure deadline is too short for gdpr-table (at least 2 days).",
    );
  });
});

describe("validation", () => {
  it("gives each bad value the API's sentence", () => {
    const errors = configErrors(
      {},
      {
        "retention.ms": { amount: "-2", unit: "h" },
        "min.cleanable.dirty.ratio": { amount: "1.5", unit: "" },
      },
    );
    expect(errors["retention.ms"]).toBe('retention.ms must be -1 or ≥ 0, got "-7200000"');
    expect(errors["min.cleanable.dirty.ratio"]).toBe(
      'min.cleanable.dirty.ratio must be a number between 0 and 1, got "1.5"',
    );
  });

  it("checks rules across configs over the preset's values, naming both fields", () => {
    const base = baseConfigs("gdpr-table", "compact", 30).configs;
    const errors = configErrors(base, { "min.compaction.lag.ms": { amount: "20", unit: "d" } });
    const message = `min.compaction.lag.ms (${20 * 86_400_000}) must not be greater than max.compaction.lag.ms (${15 * 86_400_000})`;
    expect(errors).toEqual({ "min.compaction.lag.ms": message, "max.compaction.lag.ms": message });
    expect(configErrors(base, { "min.compaction.lag.ms": { amount: "1", unit: "h" } })).toEqual({});
  });

  it("checks the name and partitions with the create schema", () => {
    expect(topicFieldErrors("good.name", "3")).toEqual({});
    expect(topicFieldErrors("bad name", "0")).toEqual({
      name: "name: may contain only letters, digits, '.', '_' and '-'",
      partitions: expect.stringMatching(/^partitions: /),
    });
    expect(topicFieldErrors("prices.latest", "3").name).toMatch(/^name: may not end in '\.latest'/);
  });

  it("finds whole config names only", () => {
    expect(configsNamedIn("delete.retention.ms must be ≥ 0, got -1")).toEqual(["delete.retention.ms"]);
    expect(configsNamedIn("retention.ms must be -1 or ≥ 0")).toEqual(["retention.ms"]);
  });

  it("puts the server's refusal next to the fields it names", () => {
    expect(
      serverFieldErrors({ code: "INVALID_CONFIG", detail: "segment.bytes must be an integer" }, "x"),
    ).toEqual({ fields: { "segment.bytes": "segment.bytes must be an integer" }, rest: null });
    expect(
      serverFieldErrors(
        { code: "INVALID_INPUT", detail: "name: bad", errors: [{ path: "name", message: "bad" }] },
        "x",
      ),
    ).toEqual({ fields: { name: "name: bad" }, rest: null });
    expect(serverFieldErrors({ code: "TOPIC_EXISTS", detail: "Topic a exists." }, "x").fields).toEqual({
      name: "Topic a exists.",
    });
    expect(serverFieldErrors({ code: "QUOTA_EXCEEDED", detail: "Too many partitions." }, "x")).toEqual({
      fields: {},
      rest: "Too many partitions.",
    });
  });

  it("lists the resulting configs with their source", () => {
    const rows = resultingConfigs({ "cleanup.policy": "compact" });
    expect(rows).toHaveLength(21);
    expect(rows[0]).toEqual({ name: "cleanup.policy", value: "compact", source: "set" });
    expect(rows.find((row) => row.name === "segment.ms")).toEqual({
      name: "segment.ms",
      value: "604800000",
      source: "default",
    });
  });
});

describe("erasure check", () => {
  it("says whether a compacted topic's configs purge erased keys within the deadline", () => {
    const gdpr = baseConfigs("gdpr-table", "compact", 30).configs;
    expect(erasureCheckOf(gdpr, 30)?.message).toMatch(
      /^Erasure deadline: .* purged and proven gone within 44 s at worst, inside the organization's 30-day/,
    );
    // Kafka's defaults (max.compaction.lag.ms never) do not hold an erasure back.
    expect(erasureCheckOf({ "cleanup.policy": "compact" }, 30)?.meetsDeadline).toBe(true);
    const held = erasureCheckOf(
      { "cleanup.policy": "compact", "min.compaction.lag.ms": String(40 * 86_400_000) },
      30,
    );
    expect(held?.message).toMatch(/may survive up to 40 d/);
    expect(held?.message).toMatch(/set min\.compaction\.lag\.ms=2505600000 \(29 d\) to meet it\.$/);
    expect(erasureCheckOf({ "cleanup.policy": "delete" }, 30)).toBeNull();
  });

  it("offers the fix in whole units, and the fixed configs meet the deadline", () => {
    const slow = { "cleanup.policy": "compact", "min.compaction.lag.ms": String(3 * 86_400_000) };
    const check = erasureCheckOf(slow, 1);
    expect(check?.meetsDeadline).toBe(false);
    // A day less the proof's 44 s is just under 24 h: 23 h, not 86356000 ms.
    expect(check?.fix).toEqual({ "min.compaction.lag.ms": "82800000" });
    expect(erasureCheckOf({ ...slow, ...check?.fix }, 1)).toMatchObject({ meetsDeadline: true, fix: null });
  });
});
