import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  deriveScramCredential,
  mockScramCredential,
  SaslError,
  SCRAM_ITERATIONS,
  type ScramCredential,
  type ScramMechanism,
  ScramServerExchange,
  unescapeSaslName,
} from "../src/index";

const require = createRequire(import.meta.url);

// kafkajs's own SCRAM client (src/broker/saslAuthenticator/scram.js), driven through the hook it
// calls for each SaslAuthenticate round trip, so the exchange is checked against a real client.
interface KafkajsScram {
  new (
    sasl: { username: string; password: string },
    host: string,
    port: number,
    logger: unknown,
    saslAuthenticate: (io: SaslIo) => Promise<unknown>,
    digest: unknown,
  ): { authenticate(): Promise<void> };
}
interface SaslIo {
  request: { encode(): Promise<Buffer> };
  response: { decode(raw: Buffer): Promise<Buffer>; parse(data: Buffer): Promise<unknown> };
}
const { SCRAM } = require("kafkajs/src/broker/saslAuthenticator/scram") as { SCRAM: KafkajsScram };
const DIGESTS: Record<ScramMechanism, unknown> = {
  "SCRAM-SHA-256": { length: 32, type: "sha256", minIterations: 4096 },
  "SCRAM-SHA-512": { length: 64, type: "sha512", minIterations: 4096 },
};
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Length-prefixed bytes, as kafkajs's Encoder.writeBytes writes and its Decoder.readBytes reads. */
function withLength(payload: Buffer): Buffer {
  const out = Buffer.alloc(4 + payload.length);
  out.writeInt32BE(payload.length, 0);
  payload.copy(out, 4);
  return out;
}

async function kafkajsLogin(
  mechanism: ScramMechanism,
  username: string,
  password: string,
  lookup: (username: string) => ScramCredential | null,
): Promise<{ seenUser: string | null }> {
  const server = new ScramServerExchange(mechanism);
  let seenUser: string | null = null;
  const authenticate = async ({ request, response }: SaslIo) => {
    const sent = (await request.encode()).subarray(4);
    let answer: Buffer;
    if (seenUser === null) {
      seenUser = server.clientFirst(sent).username;
      const credential = lookup(seenUser);
      if (!credential) throw new SaslError("invalid credentials");
      answer = server.serverFirst(credential);
    } else {
      answer = server.clientFinal(sent);
    }
    return response.parse(await response.decode(withLength(answer)));
  };
  const client = new SCRAM(
    { username, password },
    "127.0.0.1",
    9092,
    silent,
    authenticate,
    DIGESTS[mechanism],
  );
  await client.authenticate();
  return { seenUser };
}

describe("SCRAM credentials and the server exchange", () => {
  it("1. RFC 7677's SCRAM-SHA-256 example: the server accepts its client proof and answers its signature", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-256", "pencil", {
      salt: Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"),
      iterations: 4096,
    });
    const server = new ScramServerExchange("SCRAM-SHA-256", {
      serverNonce: () => "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
    });
    expect(server.clientFirst(Buffer.from("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")).username).toBe("user");
    expect(server.serverFirst(credential).toString()).toBe(
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    );
    const clientFinal =
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    expect(server.clientFinal(Buffer.from(clientFinal)).toString()).toBe(
      "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    );
  });

  it("2. kafkajs 2.2.4's SCRAM-SHA-256 and SCRAM-SHA-512 clients log in and verify the server signature", async () => {
    for (const mechanism of ["SCRAM-SHA-256", "SCRAM-SHA-512"] as const) {
      const credential = await deriveScramCredential(mechanism, "s3cret/with,comma=and=equals");
      const { seenUser } = await kafkajsLogin(mechanism, "key,id=1", "s3cret/with,comma=and=equals", (u) =>
        u === "key,id=1" ? credential : null,
      );
      expect(seenUser).toBe("key,id=1");
    }
  });

  it("3. a wrong secret fails with a SaslError at the client-final message", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-512", "right");
    await expect(kafkajsLogin("SCRAM-SHA-512", "k", "wrong", () => credential)).rejects.toThrow(
      /invalid credentials/,
    );
  });

  it("3b. an unknown user's stand-in credential: a stable salt, the usual iterations, refused only at client-final", async () => {
    for (const mechanism of ["SCRAM-SHA-256", "SCRAM-SHA-512"] as const) {
      const stand = mockScramCredential(mechanism, "key_unknown", "server secret");
      expect(stand.iterations).toBe(SCRAM_ITERATIONS);
      expect(stand.salt).toHaveLength(32);
      expect(mockScramCredential(mechanism, "key_unknown", "server secret").salt).toEqual(stand.salt);
      expect(mockScramCredential(mechanism, "key_other", "server secret").salt).not.toEqual(stand.salt);
      expect(mockScramCredential(mechanism, "key_unknown", "another secret").salt).not.toEqual(stand.salt);
      // kafkajs gets a server-first it accepts, then the very refusal a wrong secret gets.
      let served = 0;
      await expect(
        kafkajsLogin(mechanism, "key_unknown", "any secret", () => {
          served++;
          return stand;
        }),
      ).rejects.toThrow(/invalid credentials/);
      expect(served).toBe(1);
    }
  });

  it("4. a credential of the other mechanism is refused", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-256", "pw");
    await expect(kafkajsLogin("SCRAM-SHA-512", "k", "pw", () => credential)).rejects.toThrow(/mechanism/);
  });

  it("5. channel binding, a foreign authzid, a bad escape and out-of-order messages are refused", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-256", "pw");
    expect(() =>
      new ScramServerExchange("SCRAM-SHA-256").clientFirst(Buffer.from("p=tls-unique,,n=u,r=abc")),
    ).toThrow(SaslError);
    expect(() =>
      new ScramServerExchange("SCRAM-SHA-256").clientFirst(Buffer.from("n,a=other,n=u,r=abc")),
    ).toThrow(/authorization id/);
    expect(
      new ScramServerExchange("SCRAM-SHA-256").clientFirst(Buffer.from("n,a=u,n=u,r=abc")).username,
    ).toBe("u");
    expect(() => new ScramServerExchange("SCRAM-SHA-256").clientFirst(Buffer.from("n,,n=a=b,r=abc"))).toThrow(
      /=2C/,
    );
    expect(() => new ScramServerExchange("SCRAM-SHA-256").serverFirst(credential)).toThrow(/unexpected/);
    expect(() =>
      new ScramServerExchange("SCRAM-SHA-256").clientFinal(Buffer.from("c=biws,r=x,p=AAAA")),
    ).toThrow(/unexpected/);
  });

  it("6. a client-final message with another nonce or channel header is refused, and the exchange ends", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-256", "pw");
    const server = new ScramServerExchange("SCRAM-SHA-256");
    server.clientFirst(Buffer.from("n,,n=u,r=abc"));
    const nonce = /^r=([^,]+)/.exec(server.serverFirst(credential).toString())?.[1] ?? "";
    expect(() => server.clientFinal(Buffer.from(`c=biws,r=${nonce}x,p=AAAA`))).toThrow(/nonce/);
    expect(server.done).toBe(true);
    expect(() => server.clientFinal(Buffer.from(`c=biws,r=${nonce},p=AAAA`))).toThrow(/unexpected/);
    const other = new ScramServerExchange("SCRAM-SHA-256");
    other.clientFirst(Buffer.from("n,,n=u,r=abc"));
    const n2 = /^r=([^,]+)/.exec(other.serverFirst(credential).toString())?.[1] ?? "";
    const yHeader = Buffer.from("y,,").toString("base64");
    expect(() => other.clientFinal(Buffer.from(`c=${yHeader},r=${n2},p=AAAA`))).toThrow(/channel binding/);
  });

  it("6b. librdkafka's client-final form (its client nonce again before the server's nonce) is accepted, nothing looser", async () => {
    const credential = await deriveScramCredential("SCRAM-SHA-256", "pencil", {
      salt: Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"),
      iterations: 4096,
    });
    const exchange = () => {
      const server = new ScramServerExchange("SCRAM-SHA-256", { serverNonce: () => "SRV" });
      server.clientFirst(Buffer.from("n,,n=user,r=CLI"));
      server.serverFirst(credential);
      return server;
    };
    // Not a valid proof for either form: only the nonce check is under test here.
    expect(() => exchange().clientFinal(Buffer.from("c=biws,r=CLICLISRV,p=AAAA"))).toThrow(
      /invalid credentials/,
    );
    expect(() => exchange().clientFinal(Buffer.from("c=biws,r=XCLISRV,p=AAAA"))).toThrow(/nonce/);
    expect(() => exchange().clientFinal(Buffer.from("c=biws,r=CLICLICLISRV,p=AAAA"))).toThrow(/nonce/);
  });

  it("7. fewer than 4,096 iterations are never stored", async () => {
    await expect(deriveScramCredential("SCRAM-SHA-256", "pw", { iterations: 4095 })).rejects.toThrow(
      RangeError,
    );
  });

  it("8. saslname escapes round-trip for any name (property)", () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const escaped = name.replaceAll("=", "=3D").replaceAll(",", "=2C");
        expect(unescapeSaslName(escaped)).toBe(name);
      }),
    );
  });
});
