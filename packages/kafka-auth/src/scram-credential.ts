import { createHash, createHmac, pbkdf2, randomBytes } from "node:crypto";

/** The SCRAM mechanisms Kafka clients offer (RFC 5802 with the hashes of RFC 7677 and Kafka's SHA-512). */
export const SCRAM_MECHANISMS = ["SCRAM-SHA-256", "SCRAM-SHA-512"] as const;
export type ScramMechanism = (typeof SCRAM_MECHANISMS)[number];

/**
 * Iterations stored for new credentials. kafkajs refuses fewer than 4,096 (its `minIterations`), and
 * PBKDF2 runs once per key at creation, never per connection: the server only keeps the derived keys.
 */
export const SCRAM_ITERATIONS = 8192;
/** Fewest iterations a stored credential may carry: what kafkajs and librdkafka accept. */
export const SCRAM_MIN_ITERATIONS = 4096;
const SALT_BYTES = 32;

/**
 * What the server keeps for one secret and mechanism (RFC 5802 §3): never the secret itself, and
 * nothing from which a client proof could be forged without it.
 */
export interface ScramCredential {
  mechanism: ScramMechanism;
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

export function isScramMechanism(name: string): name is ScramMechanism {
  return (SCRAM_MECHANISMS as readonly string[]).includes(name);
}

/** The node:crypto hash name and digest length of a mechanism. */
export function scramDigest(mechanism: ScramMechanism): { hash: "sha256" | "sha512"; bytes: number } {
  return mechanism === "SCRAM-SHA-256" ? { hash: "sha256", bytes: 32 } : { hash: "sha512", bytes: 64 };
}

export function hmac(mechanism: ScramMechanism, key: Buffer, data: string | Buffer): Buffer {
  return createHmac(scramDigest(mechanism).hash, key).update(data).digest();
}

export function digest(mechanism: ScramMechanism, data: Buffer): Buffer {
  return createHash(scramDigest(mechanism).hash).update(data).digest();
}

function saltedPassword(
  mechanism: ScramMechanism,
  password: string,
  salt: Buffer,
  iterations: number,
): Promise<Buffer> {
  const { hash, bytes } = scramDigest(mechanism);
  return new Promise((resolve, reject) =>
    pbkdf2(password, salt, iterations, bytes, hash, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Derives the stored credential for `password`; `salt` and `iterations` are fixed only by tests. */
export async function deriveScramCredential(
  mechanism: ScramMechanism,
  password: string,
  options: { salt?: Buffer; iterations?: number } = {},
): Promise<ScramCredential> {
  const iterations = options.iterations ?? SCRAM_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < SCRAM_MIN_ITERATIONS) {
    throw new RangeError(`SCRAM iterations must be an integer of at least ${SCRAM_MIN_ITERATIONS}`);
  }
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  const salted = await saltedPassword(mechanism, password, salt, iterations);
  const clientKey = hmac(mechanism, salted, "Client Key");
  return {
    mechanism,
    salt,
    iterations,
    storedKey: digest(mechanism, clientKey),
    serverKey: hmac(mechanism, salted, "Server Key"),
  };
}

/**
 * The stand-in credential for a user name with none (an unknown, revoked or expired key), as
 * PostgreSQL's SCRAM does it: the exchange goes on exactly as for a real key with a wrong secret
 * (server-first with a salt and the usual iterations, failure only at the client-final message),
 * so nobody can tell which key ids exist. The salt is an HMAC of the name under a server secret:
 * the same on every attempt and every broker sharing the secret, as a real key's stored salt is.
 * The keys are random, so no proof ever matches.
 */
export function mockScramCredential(
  mechanism: ScramMechanism,
  username: string,
  secret: string,
): ScramCredential {
  const salt = createHmac("sha256", secret)
    .update(`lastword scram mock salt\u0000${mechanism}\u0000${username}`)
    .digest()
    .subarray(0, SALT_BYTES);
  const { bytes } = scramDigest(mechanism);
  return {
    mechanism,
    salt,
    iterations: SCRAM_ITERATIONS,
    storedKey: randomBytes(bytes),
    serverKey: randomBytes(bytes),
  };
}
