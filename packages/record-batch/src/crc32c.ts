/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): RecordBatch v2's checksum. The package owns
 * a table-driven JavaScript implementation (slicing-by-8, ~1 GB/s) so that it runs anywhere a
 * Uint8Array does; a process that checks many batches installs a faster one with `useCrc32c` — the
 * log store installs @node-rs/crc32's (SSE4.2, several GB/s), which a test pins equal to this one.
 */
export type Crc32c = (bytes: Uint8Array) => number;

const POLY = 0x82f63b78;

/** Eight 256-entry tables, one after another: table k answers a byte followed by k zero bytes. */
const TABLES = (() => {
  const t = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) {
      const prev = t[(k - 1) * 256 + i]!;
      t[k * 256 + i] = (prev >>> 8) ^ t[prev & 0xff]!;
    }
  }
  return t;
})();

/** CRC-32C of `bytes` in JavaScript; `initial` continues a checksum over earlier bytes. */
export function crc32cJs(bytes: Uint8Array, initial = 0): number {
  const t = TABLES;
  let crc = ~initial;
  let i = 0;
  const n = bytes.length;
  for (const last = n - 8; i <= last; i += 8) {
    const low = crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    crc =
      t[7 * 256 + (low & 0xff)]! ^
      t[6 * 256 + ((low >>> 8) & 0xff)]! ^
      t[5 * 256 + ((low >>> 16) & 0xff)]! ^
      t[4 * 256 + (low >>> 24)]! ^
      t[3 * 256 + bytes[i + 4]!]! ^
      t[2 * 256 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < n; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

let active: Crc32c = crc32cJs;

/**
 * Makes `implementation` the CRC-32C every batch encoded or checked in this process uses. It must
 * answer exactly what `crc32cJs` answers; it exists for speed only.
 */
export function useCrc32c(implementation: Crc32c): void {
  active = implementation;
}

/** The CRC-32C of `bytes` with the implementation in use (see useCrc32c). */
export function crc32c(bytes: Uint8Array): number {
  return active(bytes);
}
