import { SCRAM_ITERATIONS } from "@lastword/kafka-auth";
import { ApiKey, decodeResponse, ErrorCode } from "@lastword/kafka-protocol";
import { Kafka, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { CLIENT_SCOPES, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// Issue 28.10: SCRAM told existing key ids from unknown ones (a server-first with a salt only for
// existing ids), and some well-framed requests closed the connection instead of answering:
// InitProducerId with producer id 2^63−1 ("bigint out of range"), Metadata for the topic "" (an
// encode failure), and any handler that threw. Real worker, raw frames and kafkajs.

const ORG = "org_login_leaks";
const world = useKafkaWorld({ name: "kafka-login-leaks", secret: "login-leaks-secret" }, ORG, {
  topics: { events: 1 },
  scopes: [...CLIENT_SCOPES, "topics:write"],
  // Stored with the iterations the control plane uses, as a real key's credential is.
  keyOptions: { iterations: SCRAM_ITERATIONS },
});

const listener = () => ({ host: world.worker.kafka!.host, port: world.worker.kafka!.port });

/** One SCRAM-SHA-256 exchange as `user` with a proof no secret produces; every step's answer. */
async function scramWithWrongProof(user: string) {
  const raw = await RawKafka.open(listener().host, listener().port);
  await raw.call(ApiKey.SaslHandshake, 1, { mechanism: "SCRAM-SHA-256" });
  const first = await raw.call(ApiKey.SaslAuthenticate, 1, {
    authBytes: Buffer.from(`n,,n=${user},r=clientnonce`),
  });
  const serverFirst = first.authBytes.toString();
  const nonce = /^r=([^,]+)/.exec(serverFirst)?.[1] ?? "clientnonce";
  const final =
    first.errorCode === 0 && !raw.closed
      ? await raw.call(ApiKey.SaslAuthenticate, 1, {
          authBytes: Buffer.from(`c=biws,r=${nonce},p=${Buffer.alloc(32, 7).toString("base64")}`),
        })
      : null;
  raw.close();
  return {
    first: { errorCode: first.errorCode, errorMessage: first.errorMessage, serverFirst },
    final: final && { errorCode: final.errorCode, errorMessage: final.errorMessage },
  };
}

/** The shape of a server-first message with its nonce and salt left out. */
const shapeOf = (serverFirst: string) =>
  serverFirst.replace(/^r=clientnonce[^,]+/, "r=N").replace(/,s=[^,]+/, ",s=S");
const saltOf = (serverFirst: string) => /,s=([^,]+)/.exec(serverFirst)?.[1];

describe("SCRAM does not reveal which key ids exist", () => {
  it("answers an unknown id as a known one with a wrong secret: a salted server-first, then the same refusal", async () => {
    const known = await scramWithWrongProof(world.key.id);
    const unknown = await scramWithWrongProof("key_000000000000");
    const again = await scramWithWrongProof("key_000000000000");
    const other = await scramWithWrongProof("key_ffffffffffff");
    for (const attempt of [known, unknown, again, other]) {
      expect(attempt.first.errorCode).toBe(0);
      expect(shapeOf(attempt.first.serverFirst)).toBe(`r=N,s=S,i=${SCRAM_ITERATIONS}`);
      expect(Buffer.from(saltOf(attempt.first.serverFirst)!, "base64")).toHaveLength(32);
      expect(attempt.final).toEqual({
        errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
        errorMessage: known.final!.errorMessage,
      });
    }
    // A real key's salt is stored, so it repeats; an unknown id's stand-in repeats as well.
    expect(saltOf(again.first.serverFirst)).toBe(saltOf(unknown.first.serverFirst));
    expect(saltOf(other.first.serverFirst)).not.toBe(saltOf(unknown.first.serverFirst));
  });

  it("kafkajs is refused for an unknown id and logs in with a real key over SCRAM", async () => {
    const connect = (username: string, password: string) =>
      new Kafka({
        brokers: [`${listener().host}:${listener().port}`],
        sasl: { mechanism: "scram-sha-256", username, password },
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING,
      }).admin();
    const stranger = connect("key_000000000000", "lw_whatever");
    await expect(stranger.connect()).rejects.toMatchObject({ name: "KafkaJSSASLAuthenticationError" });
    const admin = connect(world.key.id, world.key.secret);
    await admin.connect();
    expect(await admin.listTopics()).toContain("events");
    await admin.disconnect();
  });
});

describe("a well-framed request always gets an answer", () => {
  it("InitProducerId with producer id 2^63−1 gets a fresh id (as Kafka for an idempotent producer), the connection stays", async () => {
    const raw = await RawKafka.login(listener(), world.key);
    for (const version of [3, 4]) {
      const answer = await raw.call(ApiKey.InitProducerId, version, {
        transactionalId: null,
        transactionTimeoutMs: 60_000,
        producerId: 2n ** 63n - 1n,
        producerEpoch: 5,
      });
      expect(answer.errorCode).toBe(0);
      expect(answer.producerId).toBeGreaterThan(0n);
      expect(answer.producerId).not.toBe(2n ** 63n - 1n);
      expect(answer.producerEpoch).toBe(0);
    }
    expect(raw.closed).toBe(false);
    raw.close();
  });

  it('Metadata for the topic name "" answers INVALID_TOPIC_EXCEPTION on every version', async () => {
    const raw = await RawKafka.login(listener(), world.key);
    for (let version = 1; version <= 12; version++) {
      const topics =
        version >= 10 ? [{ name: "", topicId: "00000000-0000-0000-0000-000000000000" }] : [{ name: "" }];
      const answer = await raw.call(ApiKey.Metadata, version, {
        topics,
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      } as never);
      expect(answer.topics, `v${version}`).toMatchObject([
        { name: "", errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION },
      ]);
    }
    expect(raw.closed).toBe(false);
    raw.close();
  });

  it("a handler that fails answers that API's UNKNOWN_SERVER_ERROR with the request's correlation id", async () => {
    // Postgres refuses every new producer id: InitProducerId's handler throws on its insert.
    await world.h.db.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_producers() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'producer ids refused by the test'; END $$ LANGUAGE plpgsql`);
    await world.h.db.prisma.$executeRawUnsafe(`
      CREATE TRIGGER refuse_producers BEFORE INSERT ON "KafkaProducer"
      FOR EACH ROW EXECUTE FUNCTION refuse_producers()`);
    try {
      const raw = await RawKafka.login(listener(), world.key);
      const correlationId = raw.nextCorrelationId;
      const frame = await raw.request(
        ApiKey.InitProducerId,
        4,
        { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 },
        0,
      );
      const answer = decodeResponse(ApiKey.InitProducerId, 4, frame);
      expect(answer.correlationId).toBe(correlationId);
      expect(answer.body).toMatchObject({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, producerId: -1n });
      // The connection still serves the next request.
      const metadata = await raw.call(ApiKey.Metadata, 12, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      } as never);
      expect(metadata.topics.map((t) => t.name)).toContain("events");
      expect(raw.closed).toBe(false);
      raw.close();
    } finally {
      await world.h.db.prisma.$executeRawUnsafe(`DROP TRIGGER refuse_producers ON "KafkaProducer"`);
      await world.h.db.prisma.$executeRawUnsafe("DROP FUNCTION refuse_producers()");
    }
  });
});
