/**
 * A failed SASL exchange. The message is for the client (Kafka's SaslAuthenticate error message):
 * it says what was wrong with the exchange, never whether a key id exists.
 */
export class SaslError extends Error {
  override readonly name = "SaslError";
}
