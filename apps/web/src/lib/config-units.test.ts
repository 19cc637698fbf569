import { describe, expect, it } from "vitest";
import { formatDurationMs, humanConfigValue } from "./config-units";

describe("humanConfigValue", () => {
  it("shows durations in the largest whole unit", () => {
    expect(humanConfigValue("retention.ms", "604800000")).toBe("7 d");
    expect(humanConfigValue("delete.retention.ms", "86400000")).toBe("1 d");
    expect(humanConfigValue("file.delete.delay.ms", "60000")).toBe("1 min");
    expect(humanConfigValue("segment.ms", "90000")).toBe("90 s");
  });

  it("shows sizes in binary units", () => {
    expect(humanConfigValue("segment.bytes", "1073741824")).toBe("1.0 GiB");
    expect(humanConfigValue("max.message.bytes", "1048588")).toBe("1.0 MiB");
  });

  it("calls -1 and Long.MAX unlimited", () => {
    expect(humanConfigValue("retention.bytes", "-1")).toBe("unlimited");
    expect(humanConfigValue("max.compaction.lag.ms", "9223372036854775807")).toBe("unlimited");
  });

  it("leaves other configs and unparseable values alone", () => {
    expect(humanConfigValue("cleanup.policy", "compact")).toBeNull();
    expect(humanConfigValue("min.cleanable.dirty.ratio", "0.5")).toBeNull();
    expect(humanConfigValue("segment.ms", "soon")).toBeNull();
  });
});

describe("formatDurationMs", () => {
  it("keeps milliseconds that are not a whole second", () => {
    expect(formatDurationMs(1500)).toBe("1500 ms");
    expect(formatDurationMs(0)).toBe("0 ms");
  });
});
