import fc from "fast-check";

/** Key, value and header values: bytes or null. */
const bytesArb = fc.option(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  { nil: null },
);

/** A record as a producer hands it in, for the property tests of the codec's readers and writers. */
export const recordArb = fc.record({
  key: bytesArb,
  value: bytesArb,
  timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytesArb }), { maxLength: 3 }),
});
