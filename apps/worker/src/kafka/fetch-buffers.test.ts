import { describe, expect, it } from "vitest";
import { FetchBuffers, POOLED_FROM_BYTES, POOLED_UP_TO_BYTES } from "./fetch-buffers";

describe("FetchBuffers", () => {
  it("lends a buffer of the next size class, and lends the same one again once it is given back", () => {
    const buffers = new FetchBuffers();
    const first = buffers.take(POOLED_FROM_BYTES + 1);
    expect(first.length).toBe(2 * POOLED_FROM_BYTES);
    // Still lent: another take gets another buffer.
    const second = buffers.take(POOLED_FROM_BYTES + 1);
    expect(second).not.toBe(first);
    buffers.giveBack(first);
    expect(buffers.idleBytes).toBe(first.length);
    expect(buffers.take(2 * POOLED_FROM_BYTES)).toBe(first);
    expect(buffers.idleBytes).toBe(0);
    // Another size class does not get it.
    buffers.giveBack(second);
    expect(buffers.take(POOLED_FROM_BYTES)).not.toBe(second);
  });

  it("caps a buffer at POOLED_UP_TO_BYTES however much is asked, and never lends less than POOLED_FROM_BYTES", () => {
    const buffers = new FetchBuffers();
    expect(buffers.take(50 << 20).length).toBe(POOLED_UP_TO_BYTES);
    expect(buffers.take(1).length).toBe(POOLED_FROM_BYTES);
  });

  it("keeps at most maxIdleBytes idle: a buffer beyond it is left to the collector", () => {
    const buffers = new FetchBuffers({ maxIdleBytes: 3 * POOLED_FROM_BYTES });
    const lent = [0, 1, 2, 3].map(() => buffers.take(POOLED_FROM_BYTES));
    for (const buffer of lent) buffers.giveBack(buffer);
    expect(buffers.idleBytes).toBe(3 * POOLED_FROM_BYTES);
    const again = [0, 1, 2, 3].map(() => buffers.take(POOLED_FROM_BYTES));
    expect(again.filter((buffer) => lent.includes(buffer))).toHaveLength(3);
  });
});
