import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AuditEventInput,
  canonicalJson,
  chainNext,
  firstBrokenLink,
  GENESIS_HASH,
} from "../src/audit-chain";

function chain(inputs: readonly AuditEventInput[]) {
  const events: ReturnType<typeof chainNext>[] = [];
  for (const input of inputs) {
    const last = events.at(-1);
    events.push(chainNext(last ? { seq: last.fields.seq, hash: last.hash } : null, input));
  }
  return events.map((e) => ({ ...e.fields, prevHash: e.prevHash, hash: e.hash }));
}

const input = (i: number, data: Record<string, unknown> = {}): AuditEventInput => ({
  organizationId: "org",
  actor: { type: "system", id: null },
  action: `a.${i}`,
  target: { type: "erasureRequest", id: `r${i}` },
  data,
  now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
});

describe("audit hash chain", () => {
  it("hashes the same event the same whatever its key order", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
  });

  it("starts at genesis and links each event to the one before", () => {
    const events = chain([input(1), input(2), input(3)]);
    expect(events[0]?.prevHash).toBe(GENESIS_HASH);
    expect(events[1]?.prevHash).toBe(events[0]?.hash);
    expect(firstBrokenLink(events)).toBeNull();
  });

  it("names the first event that was edited, removed or reordered", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.nat(), (n, pick) => {
        const events = chain(Array.from({ length: n }, (_, i) => input(i + 1, { i })));
        const victim = pick % n;
        const edited = events.map((e, i) => (i === victim ? { ...e, data: { i: -1 } } : e));
        expect(firstBrokenLink(edited)).toBe(victim + 1);
        const removed = events.filter((_, i) => i !== victim);
        expect(firstBrokenLink(removed)).toBe(victim === n - 1 ? null : victim + 2);
      }),
    );
  });
});
