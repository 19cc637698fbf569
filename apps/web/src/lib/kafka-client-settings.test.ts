import { describe, expect, it } from "vitest";
import {
  javaProperties,
  type KafkaClientSettings,
  kafkajsConfig,
  librdkafkaProperties,
  secretPlaceholder,
} from "./kafka-client-settings";

const SETTINGS: KafkaClientSettings = {
  bootstrapServers: ["10.0.0.1:9092", "10.0.0.2:9092"],
  securityProtocol: "SASL_PLAINTEXT",
  mechanism: "SCRAM-SHA-512",
  username: "key_123",
  password: 'se"cr\\et',
};

describe("Kafka client settings", () => {
  it("writes librdkafka properties with the plural sasl.mechanisms", () => {
    expect(librdkafkaProperties(SETTINGS).split("\n").slice(1)).toEqual([
      "bootstrap.servers=10.0.0.1:9092,10.0.0.2:9092",
      "security.protocol=SASL_PLAINTEXT",
      "sasl.mechanisms=SCRAM-SHA-512",
      "sasl.username=key_123",
      'sasl.password=se"cr\\et',
    ]);
  });

  it("writes Java properties with the login module of the mechanism and JAAS quoting", () => {
    const scram = javaProperties(SETTINGS);
    expect(scram).toContain("sasl.mechanism=SCRAM-SHA-512");
    expect(scram).toContain(
      'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="key_123" password="se\\"cr\\\\et";',
    );
    expect(javaProperties({ ...SETTINGS, mechanism: "PLAIN" })).toContain("security.plain.PlainLoginModule");
  });

  it("writes a kafkajs config with its lower-case mechanism names", () => {
    const config = kafkajsConfig({ ...SETTINGS, password: secretPlaceholder("ci") });
    expect(config).toContain('brokers: ["10.0.0.1:9092","10.0.0.2:9092"],');
    expect(config).toContain(
      '    mechanism: "scram-sha-512",\n    username: "key_123",\n    password: "<secret of key ci>",',
    );
  });

  it("says so when no broker is up", () => {
    expect(librdkafkaProperties({ ...SETTINGS, bootstrapServers: [] })).toContain(
      "bootstrap.servers=<no broker is up>",
    );
  });
});
