import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type ApiKey,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  KafkaProtocolError,
} from "../src";
import { planFor, supportedVersions } from "../src/registry";
import { planArbitrary } from "./schema-arbitrary";

/*
 * (c) Decoder fuzz: hostile bytes must end in a KafkaProtocolError (so the listener closes the
 * connection), never another exception, and never an allocation larger than the frame
 * (kafka-protocol.md §4.6 step 5).
 */

const hexBytes = (text: string) => Buffer.from(text.replaceAll(" ", ""), "hex");

/** Decodes and reports what happened: "ok", or the KafkaProtocolError code; anything else fails the test. */
function outcome(decode: () => unknown): string {
  try {
    decode();
    return "ok";
  } catch (error) {
    if (error instanceof KafkaProtocolError) return error.code;
    throw error;
  }
}

/** Every Buffer allocation made while decoding, to bound it by the input size. */
let allocations: number[] = [];
beforeEach(() => {
  allocations = [];
  for (const name of ["alloc", "allocUnsafe", "allocUnsafeSlow"] as const) {
    const original = Buffer[name].bind(Buffer);
    vi.spyOn(Buffer, name).mockImplementation(((size: number, ...rest: never[]) => {
      allocations.push(size);
      return (original as (size: number, ...args: never[]) => Buffer)(size, ...rest);
    }) as never);
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A valid request frame (without size prefix) for any API and version, from the schema table. */
const validRequest = fc
  .constantFrom(...supportedVersions)
  .chain(({ apiKey, minVersion, maxVersion }) =>
    fc
      .integer({ min: minVersion, max: maxVersion })
      .chain((version) =>
        planArbitrary(planFor(apiKey, version, "request")).map((body) =>
          encodeRequest(
            apiKey as ApiKey,
            version,
            { correlationId: 1, clientId: "fuzz" },
            body as never,
          ).subarray(4),
        ),
      ),
  );

const validResponse = fc.constantFrom(...supportedVersions).chain(({ apiKey, minVersion, maxVersion }) =>
  fc.integer({ min: minVersion, max: maxVersion }).chain((version) =>
    planArbitrary(planFor(apiKey, version, "response")).map((body) => ({
      apiKey: apiKey as ApiKey,
      version,
      payload: encodeResponse(apiKey as ApiKey, version, 1, body as never).subarray(4),
    })),
  ),
);

/** Each drawn request frame decodes or fails with KafkaProtocolError, allocating no more than its size. */
function decodesWithinSize(frames: fc.Arbitrary<Buffer>, numRuns: number): void {
  fc.assert(
    fc.property(frames, (frame) => {
      allocations = [];
      outcome(() => decodeRequest(frame));
      expect(Math.max(0, ...allocations)).toBeLessThanOrEqual(frame.length);
    }),
    { numRuns },
  );
}

describe("decoder fuzz", () => {
  it("every strict prefix of a valid request frame is a KafkaProtocolError, allocating no more than the prefix", () => {
    fc.assert(
      fc.property(validRequest, (frame) => {
        for (let length = 0; length < frame.length; length++) {
          allocations = [];
          expect(outcome(() => decodeRequest(frame.subarray(0, length)))).not.toBe("ok");
          expect(Math.max(0, ...allocations)).toBeLessThanOrEqual(length);
        }
        expect(outcome(() => decodeRequest(frame))).toBe("ok");
      }),
      { numRuns: 150 },
    );
  });

  it("every strict prefix of a valid response frame is a KafkaProtocolError", () => {
    fc.assert(
      fc.property(validResponse, ({ apiKey, version, payload }) => {
        for (let length = 0; length < payload.length; length++) {
          expect(outcome(() => decodeResponse(apiKey, version, payload.subarray(0, length)))).not.toBe("ok");
        }
      }),
      { numRuns: 100 },
    );
  });

  it("valid frames with random bytes overwritten decode or fail with KafkaProtocolError only", () => {
    const mutated = validRequest.chain((frame) =>
      fc
        .array(fc.tuple(fc.nat({ max: Math.max(0, frame.length - 1) }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        })
        .map((edits) => {
          const copy = Buffer.from(frame);
          for (const [at, byte] of edits) if (at < copy.length) copy[at] = byte;
          return copy;
        }),
    );
    decodesWithinSize(mutated, 1500);
  });

  it("random bytes behind a real API key and version decode or fail with KafkaProtocolError only", () => {
    const frames = fc
      .constantFrom(...supportedVersions)
      .chain(({ apiKey, minVersion, maxVersion }) =>
        fc.tuple(
          fc.constant(apiKey),
          fc.integer({ min: minVersion - 1, max: maxVersion + 1 }),
          fc.uint8Array({ maxLength: 120 }),
        ),
      )
      .map(([apiKey, version, rest]) => {
        const head = Buffer.alloc(8);
        head.writeInt16BE(apiKey, 0);
        head.writeInt16BE(version, 2);
        head.writeInt32BE(1, 4);
        return Buffer.concat([head, rest]);
      });
    decodesWithinSize(frames, 3000);
  });

  it("a claimed 2 GiB byte length in a 20-byte frame is TRUNCATED before anything is allocated", () => {
    // SaslAuthenticate v0: header v1 (null client id), then AuthBytes with an int32 length of 2^31-1.
    const frame = hexBytes("00240000 00000001 ffff 7fffffff 000000000000");
    expect(frame.length).toBe(20);
    allocations = [];
    const error = (() => {
      try {
        decodeRequest(frame);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(KafkaProtocolError);
    expect((error as KafkaProtocolError).code).toBe("TRUNCATED");
    expect((error as KafkaProtocolError).message).toContain("2147483647");
    expect(allocations.filter((size) => size > frame.length)).toEqual([]);
  });

  it("an array count of 2^31-1 is rejected by the bytes left, not by reading until the frame ends", () => {
    // DescribeGroups v0: Groups with an int32 count of 2^31-1 and one string behind it.
    const classic = hexBytes("000f0000 00000001 ffff 7fffffff 0001 61");
    expect(() => decodeRequest(classic)).toThrow(/needs (\d{9,}) more bytes/);
    // DescribeGroups v5 (flexible): a compact count of 2^31-2 (uvarint 0xfffffff7 07).
    const compact = hexBytes("000f0005 00000001 ffff 00 f7ffffff07 00");
    expect(() => decodeRequest(compact)).toThrow(/needs (\d{9,}) more bytes/);
  });

  it("unsigned varints longer than 5 bytes or above int32 are BAD_VARINT (ByteUtils.readUnsignedVarint)", () => {
    // ApiVersions v3 request: ClientSoftwareName's compact length is the varint under test.
    const withLength = (varint: string) => hexBytes(`00120003 00000001 ffff 00 ${varint} 00 00`);
    expect(outcome(() => decodeRequest(withLength("ffffffffff01")))).toBe("BAD_VARINT"); // 6 bytes
    expect(outcome(() => decodeRequest(withLength("ffffffff0f")))).toBe("BAD_VARINT"); // 2^32 - 1
    expect(outcome(() => decodeRequest(withLength("8080808008")))).toBe("BAD_VARINT"); // 2^31
    expect(outcome(() => decodeRequest(withLength("ffffff")))).toBe("TRUNCATED"); // runs off the end
  });

  it("negative lengths other than null's -1 are INVALID_LENGTH", () => {
    // SaslHandshake v1 mechanism length -2; SaslAuthenticate v0 bytes length -5; DescribeGroups v0 count -3.
    expect(outcome(() => decodeRequest(hexBytes("00110001 00000001 ffff fffe")))).toBe("INVALID_LENGTH");
    expect(outcome(() => decodeRequest(hexBytes("00240000 00000001 ffff fffffffb")))).toBe("INVALID_LENGTH");
    expect(outcome(() => decodeRequest(hexBytes("000f0000 00000001 ffff fffffffd")))).toBe("INVALID_LENGTH");
    // A negative client id length in the header itself.
    expect(outcome(() => decodeRequest(hexBytes("00120000 00000001 fff0")))).toBe("INVALID_LENGTH");
  });
});
