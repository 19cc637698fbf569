import { describe, expect, it } from "vitest";
import { retentionDue } from "../src/cleaner/retention-due";
import type { LogSegment } from "../src/hosting/hosted-log";

const segment = (
  baseOffset: number,
  lastOffset: number,
  sizeBytes: number,
  maxTimestamp: number,
): LogSegment => ({
  baseOffset,
  lastOffset,
  sizeBytes,
  records: lastOffset - baseOffset + 1,
  tombstones: 0,
  firstTimestamp: maxTimestamp,
  maxTimestamp,
  active: false,
  remote: false,
});
const policy = (p: { compact?: boolean; delete?: boolean }) => ({
  compact: p.compact ?? false,
  delete: p.delete ?? false,
});
const now = 1_000_000;

describe("retention due", () => {
  const segments = [segment(0, 9, 1000, now - 5_000), { ...segment(10, 19, 1000, now - 10), active: true }];

  it("is due by time when the oldest segment's newest record is older than retention.ms", () => {
    const config = { cleanupPolicy: policy({ delete: true }), retentionMs: 4_000, retentionBytes: -1 };
    expect(retentionDue(config, segments, 0, now)).toBe(true);
    expect(retentionDue({ ...config, retentionMs: 6_000 }, segments, 0, now)).toBe(false);
    expect(retentionDue({ ...config, retentionMs: -1 }, segments, 0, now)).toBe(false);
  });

  it("is due by size only if deleting the oldest still leaves retention.bytes", () => {
    const config = { cleanupPolicy: policy({ delete: true }), retentionMs: -1, retentionBytes: 1000 };
    expect(retentionDue(config, segments, 0, now)).toBe(true);
    expect(retentionDue({ ...config, retentionBytes: 1001 }, segments, 0, now)).toBe(false);
  });

  it("on compact-only topics applies only the log-start rule", () => {
    const config = { cleanupPolicy: policy({ compact: true }), retentionMs: 1, retentionBytes: 1 };
    expect(retentionDue(config, segments, 0, now)).toBe(false);
    expect(retentionDue(config, segments, 10, now)).toBe(true);
  });
});
