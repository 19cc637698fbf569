import { SaslError } from "./sasl-error";

/** Longest PLAIN message read: an authzid, a key id and a secret, each far below this. */
export const PLAIN_MAX_BYTES = 4096;

/**
 * Splits a SASL PLAIN message, `authzid NUL authcid NUL passwd` (RFC 4616). kafkajs sends an empty
 * authzid; Kafka refuses one that is neither empty nor the user name, and so do we.
 */
export function parsePlain(message: Buffer): { username: string; password: string } {
  if (message.length > PLAIN_MAX_BYTES) throw new SaslError("the PLAIN message is too long");
  const first = message.indexOf(0);
  const second = first < 0 ? -1 : message.indexOf(0, first + 1);
  if (first < 0 || second < 0 || message.indexOf(0, second + 1) >= 0) {
    throw new SaslError("malformed PLAIN message: expected authzid NUL username NUL password");
  }
  const authzid = message.subarray(0, first).toString("utf8");
  const username = message.subarray(first + 1, second).toString("utf8");
  const password = message.subarray(second + 1).toString("utf8");
  if (username === "" || password === "")
    throw new SaslError("the PLAIN user name and password must not be empty");
  if (authzid !== "" && authzid !== username) {
    throw new SaslError("the authorization id differs from the user name");
  }
  return { username, password };
}
