import { randomBytes, timingSafeEqual } from "node:crypto";
import { SaslError } from "./sasl-error";
import { digest, hmac, type ScramCredential, type ScramMechanism } from "./scram-credential";

// The server side of one SCRAM exchange (RFC 5802 §5), as Kafka runs it: two SaslAuthenticate round
// trips, no channel binding (Kafka accepts only the "n" GS2 flag), extensions tolerated and ignored.

const CLIENT_FIRST = /^n,(?:a=([^,]*))?,(n=([^,]*),r=([^,]+)(?:,.*)?)$/;
const CLIENT_FINAL = /^(c=([^,]*),r=([^,]+)(?:,(?!p=)[^,]*)*),p=([^,]+)$/;

/** A SCRAM `saslname` with `=2C` and `=3D` unescaped; any other `=` fails (RFC 5802 §5.1). */
export function unescapeSaslName(name: string): string {
  if (/=(?!2C|3D)/.test(name)) throw new SaslError("the user name has an '=' that is not =2C or =3D");
  return name.replaceAll("=2C", ",").replaceAll("=3D", "=");
}

type State =
  | { step: "client-first" }
  | {
      step: "client-final";
      credential: ScramCredential;
      clientNonce: string;
      nonce: string;
      gs2Header: string;
      authPrefix: string;
    }
  | { step: "done" };

export class ScramServerExchange {
  readonly mechanism: ScramMechanism;
  #state: State = { step: "client-first" };
  #pending: { gs2Header: string; bare: string; clientNonce: string } | null = null;

  readonly #serverNonce: () => string;

  /** `serverNonce` is fixed only by tests that replay a published exchange. */
  constructor(mechanism: ScramMechanism, options: { serverNonce?: () => string } = {}) {
    this.mechanism = mechanism;
    this.#serverNonce = options.serverNonce ?? (() => randomBytes(18).toString("base64"));
  }

  /** Reads the client-first message and names the user whose credential the caller must look up. */
  clientFirst(message: Buffer): { username: string } {
    if (this.#state.step !== "client-first" || this.#pending) throw new SaslError("unexpected SCRAM message");
    const text = message.toString("utf8");
    const match = CLIENT_FIRST.exec(text);
    if (!match)
      throw new SaslError("malformed SCRAM client-first message (channel binding is not supported)");
    const [, authzid, bare, rawName, clientNonce] = match as unknown as [
      string,
      string | undefined,
      string,
      string,
      string,
    ];
    const username = unescapeSaslName(rawName);
    if (authzid !== undefined && authzid !== "" && unescapeSaslName(authzid) !== username) {
      throw new SaslError("the authorization id differs from the user name");
    }
    const gs2Header = authzid === undefined ? "n,," : `n,a=${authzid},`;
    this.#pending = { gs2Header, bare, clientNonce };
    return { username };
  }

  /** The server-first message for the user's stored credential. */
  serverFirst(credential: ScramCredential): Buffer {
    const pending = this.#pending;
    if (this.#state.step !== "client-first" || !pending) throw new SaslError("unexpected SCRAM message");
    if (credential.mechanism !== this.mechanism) throw new SaslError("no credential for this mechanism");
    const nonce = pending.clientNonce + this.#serverNonce();
    const serverFirst = `r=${nonce},s=${credential.salt.toString("base64")},i=${credential.iterations}`;
    this.#state = {
      step: "client-final",
      credential,
      clientNonce: pending.clientNonce,
      nonce,
      gs2Header: pending.gs2Header,
      authPrefix: `${pending.bare},${serverFirst}`,
    };
    this.#pending = null;
    return Buffer.from(serverFirst, "utf8");
  }

  /** Checks the client proof; returns the server-final message that proves the server knew the key. */
  clientFinal(message: Buffer): Buffer {
    const state = this.#state;
    if (state.step !== "client-final") throw new SaslError("unexpected SCRAM message");
    this.#state = { step: "done" };
    const match = CLIENT_FINAL.exec(message.toString("utf8"));
    if (!match) throw new SaslError("malformed SCRAM client-final message");
    const [, withoutProof, channel, nonce, proof] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    if (Buffer.from(channel, "base64").toString("utf8") !== state.gs2Header) {
      throw new SaslError("the channel binding differs from the client-first message");
    }
    // librdkafka (2.0 through 2.15) sends its client nonce again before the server's whole nonce;
    // Kafka accepts a client-final nonce that ends with its own, so accept exactly that form too.
    if (nonce !== state.nonce && nonce !== state.clientNonce + state.nonce) {
      throw new SaslError("the nonce differs from the server's");
    }
    const { credential } = state;
    const authMessage = `${state.authPrefix},${withoutProof}`;
    const clientSignature = hmac(this.mechanism, credential.storedKey, authMessage);
    const clientProof = Buffer.from(proof, "base64");
    if (clientProof.length !== clientSignature.length) throw new SaslError("invalid credentials");
    const clientKey = Buffer.alloc(clientProof.length);
    for (let i = 0; i < clientKey.length; i++) clientKey[i] = clientProof[i]! ^ clientSignature[i]!;
    if (!timingSafeEqual(digest(this.mechanism, clientKey), credential.storedKey)) {
      throw new SaslError("invalid credentials");
    }
    const serverSignature = hmac(this.mechanism, credential.serverKey, authMessage);
    return Buffer.from(`v=${serverSignature.toString("base64")}`, "utf8");
  }

  get done(): boolean {
    return this.#state.step === "done";
  }
}
