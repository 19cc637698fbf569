import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FrameReader, KafkaProtocolError, MAX_FRAME_BYTES, PRE_AUTH_MAX_FRAME_BYTES } from "../src";

/* The TCP framing: int32 size + payload, a cap checked before buffering (kafka-protocol.md §4.1). */

function frame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

function drain(reader: FrameReader): Buffer[] {
  const out: Buffer[] = [];
  for (let next = reader.next(); next; next = reader.next()) out.push(next);
  return out;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof KafkaProtocolError) return error.code;
    throw error;
  }
  return undefined;
}

describe("frame reader", () => {
  it("starts with the pre-authentication cap of 64 KiB; the listener raises it to 100 MiB after SASL", () => {
    expect(new FrameReader().maxFrameBytes).toBe(PRE_AUTH_MAX_FRAME_BYTES);
    expect(PRE_AUTH_MAX_FRAME_BYTES).toBe(64 * 1024);
    expect(MAX_FRAME_BYTES).toBe(100 * 1024 * 1024);
  });

  it("rejects a size above the cap as soon as the 4 size bytes arrive, before any payload is buffered", () => {
    const reader = new FrameReader();
    const size = Buffer.alloc(4);
    size.writeInt32BE(PRE_AUTH_MAX_FRAME_BYTES + 1, 0);
    reader.push(size.subarray(0, 2));
    expect(reader.next()).toBeUndefined();
    reader.push(size.subarray(2));
    expect(codeOf(() => reader.next())).toBe("FRAME_TOO_LARGE");
    expect(reader.bufferedBytes).toBe(0);
  });

  it("accepts a frame of exactly the cap, and larger ones once the cap is raised", () => {
    const reader = new FrameReader({ maxFrameBytes: 16 });
    reader.push(frame(Buffer.alloc(16, 1)));
    expect(drain(reader)).toEqual([Buffer.alloc(16, 1)]);
    reader.push(frame(Buffer.alloc(17, 2)));
    expect(codeOf(() => reader.next())).toBe("FRAME_TOO_LARGE");
    const raised = new FrameReader({ maxFrameBytes: 16 });
    raised.maxFrameBytes = 1024;
    raised.push(frame(Buffer.alloc(17, 2)));
    expect(drain(raised)).toEqual([Buffer.alloc(17, 2)]);
  });

  it("a negative size is INVALID_LENGTH", () => {
    const reader = new FrameReader();
    reader.push(Buffer.from([0xff, 0xff, 0xff, 0xfe]));
    expect(codeOf(() => reader.next())).toBe("INVALID_LENGTH");
  });

  it("returns a frame held inside one chunk as a view of that chunk, not a copy", () => {
    const chunk = Buffer.concat([frame(Buffer.from("one")), frame(Buffer.from("two"))]);
    const reader = new FrameReader();
    reader.push(chunk);
    const frames = drain(reader);
    expect(frames.map(String)).toEqual(["one", "two"]);
    expect(frames.every((f) => f.buffer === chunk.buffer)).toBe(true);
  });

  it("yields the same frames however the stream is cut into chunks (property)", () => {
    const payloads = fc.array(fc.uint8Array({ maxLength: 40 }).map(Buffer.from), { maxLength: 8 });
    fc.assert(
      fc.property(payloads, fc.array(fc.nat({ max: 50 }), { maxLength: 30 }), (list, cuts) => {
        const stream = Buffer.concat(list.map(frame));
        const reader = new FrameReader();
        const out: Buffer[] = [];
        let at = 0;
        for (const cut of [...cuts, stream.length]) {
          const end = Math.min(stream.length, at + cut);
          reader.push(stream.subarray(at, end));
          out.push(...drain(reader));
          at = end;
        }
        expect(out).toEqual(list);
        expect(reader.bufferedBytes).toBe(0);
      }),
    );
  });

  it("missingBytes counts what the frame in progress still needs, 0 once one is complete, across chunk cuts", () => {
    const reader = new FrameReader({ maxFrameBytes: 1 << 20 });
    expect(reader.missingBytes).toBe(4);
    const big = frame(Buffer.alloc(3000, 7));
    reader.push(big.subarray(0, 2));
    expect(reader.missingBytes).toBe(2);
    reader.push(big.subarray(2, 1000));
    expect(reader.missingBytes).toBe(big.length - 1000);
    reader.push(big.subarray(1000));
    expect(reader.missingBytes).toBe(0);
    expect(reader.next()?.length).toBe(3000);
    expect(reader.missingBytes).toBe(4);
  });
});
