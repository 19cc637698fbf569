import { describe, expect, it } from "vitest";
import {
  formatTopicConfig,
  LONG_MAX_MS,
  localRetention,
  maxSegmentMs,
  parseTopicConfig,
  TOPIC_CONFIG_DEFINITIONS,
  TopicConfigError,
  timestampBounds,
} from "../src/index";

function message(input: Record<string, unknown>): string {
  try {
    parseTopicConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(TopicConfigError);
    expect((error as TopicConfigError).code).toBe("INVALID_CONFIG");
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe("topic config", () => {
  it("1. Kafka defaults apply to every config not given", () => {
    expect(parseTopicConfig({})).toEqual({
      cleanupPolicy: { compact: false, delete: true },
      retentionMs: 604_800_000,
      retentionBytes: -1,
      localRetentionMs: -2,
      localRetentionBytes: -2,
      segmentMs: 604_800_000,
      segmentBytes: 1_073_741_824,
      segmentJitterMs: 0,
      segmentIndexBytes: 10_485_760,
      minCleanableDirtyRatio: 0.5,
      minCompactionLagMs: 0,
      maxCompactionLagMs: LONG_MAX_MS,
      deleteRetentionMs: 86_400_000,
      maxMessageBytes: 1_048_588,
      fileDeleteDelayMs: 60_000,
      messageTimestampType: "CreateTime",
      messageTimestampDifferenceMaxMs: LONG_MAX_MS,
      messageTimestampBeforeMaxMs: LONG_MAX_MS,
      messageTimestampAfterMaxMs: LONG_MAX_MS,
      compressionType: "producer",
      durability: "object",
    });
  });

  it("1c. message.timestamp.before/after.max.ms bound CreateTime records around the append time, falling back to difference.max.ms", () => {
    const now = 1_000_000_000;
    expect(timestampBounds(parseTopicConfig({}), now)).toEqual({ min: null, max: null });
    expect(timestampBounds(parseTopicConfig({ "message.timestamp.difference.max.ms": 500 }), now)).toEqual({
      min: now - 500,
      max: now + 500,
    });
    const both = {
      "message.timestamp.difference.max.ms": 500,
      "message.timestamp.before.max.ms": 100,
      "message.timestamp.after.max.ms": "9223372036854775807",
    };
    expect(timestampBounds(parseTopicConfig(both), now)).toEqual({ min: now - 100, max: now + 500 });
    expect(() => parseTopicConfig({ "message.timestamp.after.max.ms": -1 })).toThrow(
      "message.timestamp.after.max.ms must be ≥ 0, got -1",
    );
  });

  it("1b. local.retention.* default to retention.*, may not outlive it, and resolve to the bounds in force", () => {
    expect(localRetention(parseTopicConfig({}))).toEqual({ ms: 604_800_000, bytes: null });
    expect(
      localRetention(
        parseTopicConfig({ "retention.ms": -1, "local.retention.bytes": 0, "local.retention.ms": -1 }),
      ),
    ).toEqual({ ms: null, bytes: 0 });
    expect(message({ "retention.bytes": 1000, "local.retention.bytes": 2000 })).toBe(
      "local.retention.bytes (2000) must not exceed retention.bytes (1000): the local copy cannot outlive the log",
    );
    expect(message({ "local.retention.ms": -1 })).toMatch(
      /local.retention.ms \(-1\) must not exceed retention.ms/,
    );
    expect(message({ "local.retention.ms": -3 })).toBe("local.retention.ms must be -2, -1 or ≥ 0, got -3");
  });

  it("2. strings and numbers are both accepted, with Kafka names", () => {
    const config = parseTopicConfig({
      "cleanup.policy": "Compact, Delete",
      "retention.ms": "-1",
      "segment.bytes": 14,
      "min.cleanable.dirty.ratio": "0.25",
      "max.compaction.lag.ms": "9223372036854775807",
      "message.timestamp.type": "LogAppendTime",
      "compression.type": "zstd",
    });
    expect(config.cleanupPolicy).toEqual({ compact: true, delete: true });
    expect(config.retentionMs).toBe(-1);
    expect(config.segmentBytes).toBe(14);
    expect(config.minCleanableDirtyRatio).toBe(0.25);
    expect(config.maxCompactionLagMs).toBe(LONG_MAX_MS);
    expect(config.messageTimestampType).toBe("LogAppendTime");
    expect(config.compressionType).toBe("zstd");
  });

  it("3. out-of-range values are rejected with a sentence naming config, rule and value", () => {
    expect(message({ "retention.ms": -5 })).toBe("retention.ms must be -1 or ≥ 0, got -5");
    expect(message({ "segment.bytes": "13" })).toBe(
      'segment.bytes must be an integer between 14 and 2147483647, got "13"',
    );
    expect(message({ "segment.ms": 0 })).toBe("segment.ms must be ≥ 1, got 0");
    expect(message({ "min.cleanable.dirty.ratio": 1.5 })).toBe(
      "min.cleanable.dirty.ratio must be a number between 0 and 1, got 1.5",
    );
    expect(message({ "cleanup.policy": "compacted" })).toBe(
      'cleanup.policy must be delete, compact or compact,delete, got "compacted"',
    );
    expect(message({ "delete.retention.ms": "1.5" })).toBe('delete.retention.ms must be ≥ 0, got "1.5"');
    expect(message({ "segment.index.bytes": 3 })).toContain(
      "segment.index.bytes must be an integer between 4",
    );
    expect(message({ "message.timestamp.type": "Now" })).toContain("CreateTime or LogAppendTime");
    expect(message({ "compression.type": "brotli" })).toBe(
      'compression.type must be one of producer, uncompressed, gzip, snappy, lz4, zstd, got "brotli"',
    );
    expect(message({ "max.compaction.lag.ms": 0 })).toBe("max.compaction.lag.ms must be ≥ 1, got 0");
    expect(message({ "retention.ms": { ms: 5 } })).toBe(
      "retention.ms must be a string or a number, got object",
    );
  });

  it("4. min.compaction.lag.ms may not exceed max.compaction.lag.ms", () => {
    expect(message({ "min.compaction.lag.ms": 10, "max.compaction.lag.ms": 5 })).toBe(
      "min.compaction.lag.ms (10) must not be greater than max.compaction.lag.ms (5)",
    );
    expect(
      parseTopicConfig({ "min.compaction.lag.ms": 5, "max.compaction.lag.ms": 5 }).minCompactionLagMs,
    ).toBe(5);
  });

  it("5. unknown names are rejected", () => {
    expect(message({ "retention.hours": 5 })).toBe('unknown topic config "retention.hours"');
  });

  it("6. every definition has a doc line and a default that parses; format prints Kafka notation back", () => {
    for (const definition of TOPIC_CONFIG_DEFINITIONS) {
      expect(definition.doc.length).toBeGreaterThan(10);
      expect(definition.parse(definition.default).ok).toBe(true);
    }
    const printed = formatTopicConfig(parseTopicConfig({ "cleanup.policy": "delete,compact" }));
    expect(printed["cleanup.policy"]).toBe("compact,delete");
    expect(printed["max.compaction.lag.ms"]).toBe("9223372036854775807");
    expect(parseTopicConfig(printed)).toEqual(parseTopicConfig({ "cleanup.policy": "compact,delete" }));
  });

  it("7. KIP-354: on compacted topics max.compaction.lag.ms caps segment.ms", () => {
    const capped = { "segment.ms": 1000, "max.compaction.lag.ms": 300 };
    expect(maxSegmentMs(parseTopicConfig({ ...capped, "cleanup.policy": "compact" }))).toBe(300);
    expect(maxSegmentMs(parseTopicConfig({ ...capped, "cleanup.policy": "delete" }))).toBe(1000);
  });
});

describe("the catalog's choices and special values", () => {
  it("offers choices exactly for the configs without a unit, and each one parses", () => {
    for (const definition of TOPIC_CONFIG_DEFINITIONS) {
      expect(definition.choices.length > 0, definition.name).toBe(definition.unit === null);
      for (const choice of definition.choices) {
        expect(formatTopicConfig(parseTopicConfig({ [definition.name]: choice }))[definition.name]).toBe(
          choice,
        );
      }
    }
  });

  it("gives special values only to amounts, and each one parses to itself", () => {
    for (const definition of TOPIC_CONFIG_DEFINITIONS) {
      if (definition.unit === null) expect(definition.special, definition.name).toEqual([]);
      for (const special of definition.special) {
        // local.retention.* may not outlive retention.*: both unbounded lets every special parse.
        const config = parseTopicConfig({ "retention.ms": -1, [definition.name]: special.raw });
        expect(formatTopicConfig(config)[definition.name], definition.name).toBe(special.raw);
      }
    }
    const names = TOPIC_CONFIG_DEFINITIONS.filter((d) => d.special.some((s) => s.means === "as-retention"));
    expect(names.map((d) => d.name)).toEqual(["local.retention.ms", "local.retention.bytes"]);
  });
});
