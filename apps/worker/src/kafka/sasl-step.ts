import {
  isScramMechanism,
  parsePlain,
  SaslError,
  type ScramMechanism,
  ScramServerExchange,
} from "@lastword/kafka-auth";
import type { KafkaPrincipal, KafkaPrincipals } from "./kafka-principals";

/** The mechanisms offered in SaslHandshake, in Kafka's spelling. */
export const SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export function isSaslMechanism(name: string): name is SaslMechanism {
  return (SASL_MECHANISMS as readonly string[]).includes(name);
}

export type SaslOutcome =
  | { done: false; reply: Buffer }
  | { done: true; reply: Buffer; principal: KafkaPrincipal };

/**
 * One connection's SASL exchange after its handshake named `mechanism`: PLAIN in one token, SCRAM in
 * two. Every failure is a SaslError whose message goes back with SASL_AUTHENTICATION_FAILED.
 */
export class SaslStep {
  readonly mechanism: SaslMechanism;
  readonly #principals: KafkaPrincipals;
  readonly #scram: ScramServerExchange | null;
  /** After the client-first message: the key's principal, or null for a key id with no credential. */
  #principal: KafkaPrincipal | null | undefined;
  /** The key id the client named (its SASL user name), once a token named one: failed logins are counted per key id. */
  keyId: string | null = null;

  constructor(mechanism: SaslMechanism, principals: KafkaPrincipals) {
    this.mechanism = mechanism;
    this.#principals = principals;
    this.#scram = isScramMechanism(mechanism) ? new ScramServerExchange(mechanism as ScramMechanism) : null;
  }

  async next(token: Buffer): Promise<SaslOutcome> {
    const scram = this.#scram;
    if (!scram) {
      const { username, password } = parsePlain(token);
      this.keyId = username;
      const principal = await this.#principals.verifyPlain(username, password);
      return { done: true, reply: Buffer.alloc(0), principal };
    }
    if (this.#principal === undefined) {
      const { username } = scram.clientFirst(token);
      this.keyId = username;
      const { principal, credential } = await this.#principals.scram(username, scram.mechanism);
      this.#principal = principal;
      return { done: false, reply: scram.serverFirst(credential) };
    }
    if (scram.done) throw new SaslError("the SCRAM exchange is already complete");
    // An unknown key id ran on a stand-in credential no proof matches: clientFinal refuses it as
    // it refuses a wrong secret (the same message); the check after it only makes that explicit.
    const reply = scram.clientFinal(token);
    if (this.#principal === null) throw new SaslError("invalid credentials");
    return { done: true, reply, principal: this.#principal };
  }
}
