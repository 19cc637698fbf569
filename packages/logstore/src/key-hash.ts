// 128-bit key hash for the cleaner's offset map: MurmurHash3 x86_128, written from the algorithm's
// published description (Austin Appleby, public domain). Kafka hashes keys with MD5, but node's
// crypto allocates a Hash object and a digest Buffer per call; this runs on a byte range of the
// segment read buffer and writes into a preallocated word array, so the map's hot loops allocate
// nothing. 128 bits keep accidental collisions (two keys treated as one) as unlikely as Kafka's.
// Like MD5 it is not collision resistant against a chosen-key attacker; the map seeds it per pass,
// and a partition's keys all come from one tenant, who could only harm their own topic.

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

/** Words of the last hash computed by `hashKey128`, little-endian order (h1, h2, h3, h4). */
export const keyHashWords = new Int32Array(4);

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

function read32(buf: Uint8Array, i: number): number {
  return buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
}

/** Mixes one tail word the way the full-block loop mixes it, minus the h-lane update. */
function mixK(k: number, ca: number, r: number, cb: number): number {
  return Math.imul(rotl(Math.imul(k, ca), r), cb);
}

function tailWord(buf: Uint8Array, from: number, count: number): number {
  let k = 0;
  for (let i = count - 1; i >= 0; i--) k = (k << 8) | buf[from + i]!;
  return k;
}

/**
 * Hashes `buf[start, end)` with `seed` and leaves the 128-bit result in `keyHashWords`.
 * Returns nothing so that callers never allocate a result object.
 */
export function hashKey128(buf: Uint8Array, start: number, end: number, seed: number): void {
  const len = end - start;
  let h1 = seed | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const blocksEnd = start + (len & ~15);
  for (let i = start; i < blocksEnd; i += 16) {
    h1 ^= mixK(read32(buf, i), C1, 15, C2);
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    h2 ^= mixK(read32(buf, i + 4), C2, 16, C3);
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    h3 ^= mixK(read32(buf, i + 8), C3, 17, C4);
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    h4 ^= mixK(read32(buf, i + 12), C4, 18, C1);
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  const rest = len & 15;
  if (rest > 12) h4 ^= mixK(tailWord(buf, blocksEnd + 12, rest - 12), C4, 18, C1);
  if (rest > 8) h3 ^= mixK(tailWord(buf, blocksEnd + 8, Math.min(rest - 8, 4)), C3, 17, C4);
  if (rest > 4) h2 ^= mixK(tailWord(buf, blocksEnd + 4, Math.min(rest - 4, 4)), C2, 16, C3);
  if (rest > 0) h1 ^= mixK(tailWord(buf, blocksEnd, Math.min(rest, 4)), C1, 15, C2);
  finish(h1 ^ len, h2 ^ len, h3 ^ len, h4 ^ len);
}

function finish(a: number, b: number, c: number, d: number): void {
  let h1 = (a + b + c + d) | 0;
  let h2 = (b + h1) | 0;
  let h3 = (c + h1) | 0;
  let h4 = (d + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  keyHashWords[0] = h1;
  keyHashWords[1] = h2 + h1;
  keyHashWords[2] = h3 + h1;
  keyHashWords[3] = h4 + h1;
}
