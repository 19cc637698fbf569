export { PLAIN_MAX_BYTES, parsePlain } from "./plain";
export { SaslError } from "./sasl-error";
export {
  deriveScramCredential,
  isScramMechanism,
  mockScramCredential,
  SCRAM_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanism,
} from "./scram-credential";
export { ScramServerExchange, unescapeSaslName } from "./scram-server";
