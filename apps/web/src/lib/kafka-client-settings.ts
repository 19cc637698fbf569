/**
 * Copy-paste settings for Kafka clients: kafkajs, librdkafka (kcat, confluent-kafka) and the Java
 * client. The username is the API key's id and the password its secret; the secret is known only
 * right after the key is created, so otherwise the settings carry a placeholder naming the key.
 */
export type SaslMechanism = "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface KafkaClientSettings {
  bootstrapServers: readonly string[];
  securityProtocol: "SASL_PLAINTEXT";
  mechanism: SaslMechanism;
  username: string;
  password: string;
  /** Named in the comments' example commands when the settings are shown for one topic. */
  topic?: string;
}

/** Stands where a secret would go: the console never has it after creation. */
export function secretPlaceholder(keyName: string): string {
  return `<secret of key ${keyName}>`;
}

/** Stands for the bootstrap list while no worker's Kafka listener is up. */
export const NO_BROKER_PLACEHOLDER = "<no broker is up>";

function brokers(settings: KafkaClientSettings): string[] {
  return settings.bootstrapServers.length > 0 ? [...settings.bootstrapServers] : [NO_BROKER_PLACEHOLDER];
}

export function kafkajsConfig(settings: KafkaClientSettings): string {
  return [
    'import { Kafka } from "kafkajs";',
    "",
    "const kafka = new Kafka({",
    `  brokers: ${JSON.stringify(brokers(settings))},`,
    "  ssl: false,",
    "  sasl: {",
    `    mechanism: ${JSON.stringify(settings.mechanism.toLowerCase())},`,
    `    username: ${JSON.stringify(settings.username)},`,
    `    password: ${JSON.stringify(settings.password)},`,
    "  },",
    "});",
    ...(settings.topic
      ? ["", `// e.g. kafka.consumer({ groupId: "my-app" }) subscribed to "${settings.topic}"`]
      : []),
  ].join("\n");
}

export function librdkafkaProperties(settings: KafkaClientSettings): string {
  return [
    `# kcat -F lastword.properties -C -t ${settings.topic ?? "<topic>"}`,
    `bootstrap.servers=${brokers(settings).join(",")}`,
    `security.protocol=${settings.securityProtocol}`,
    `sasl.mechanisms=${settings.mechanism}`,
    `sasl.username=${settings.username}`,
    `sasl.password=${settings.password}`,
  ].join("\n");
}

/** JAAS quotes its options: a quote or backslash in them is escaped. */
function jaasQuoted(value: string): string {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

export function javaProperties(settings: KafkaClientSettings): string {
  const loginModule =
    settings.mechanism === "PLAIN"
      ? "org.apache.kafka.common.security.plain.PlainLoginModule"
      : "org.apache.kafka.common.security.scram.ScramLoginModule";
  return [
    `bootstrap.servers=${brokers(settings).join(",")}`,
    `security.protocol=${settings.securityProtocol}`,
    `sasl.mechanism=${settings.mechanism}`,
    `sasl.jaas.config=${loginModule} required username=${jaasQuoted(settings.username)} password=${jaasQuoted(settings.password)};`,
  ].join("\n");
}

/** kcat with the librdkafka properties above: the view's records from the beginning, exiting at its end. */
export function latestViewKcat(view: string): string {
  return `kcat -F lastword.properties -C -t ${view} -o beginning -e`;
}

/** A kafkajs group member on the view (offsets it commits are the topic's own). */
export function latestViewKafkajs(view: string): string {
  return [
    'const consumer = kafka.consumer({ groupId: "my-app" });',
    "await consumer.connect();",
    `await consumer.subscribe({ topic: ${JSON.stringify(view)}, fromBeginning: true });`,
    "await consumer.run({ eachMessage: async ({ message }) => { /* upsert message.key, or delete it on a null value */ } });",
  ].join("\n");
}
