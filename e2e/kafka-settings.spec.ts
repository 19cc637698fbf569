import { Kafka, logLevel } from "kafkajs";
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { compactedTopic, saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";
import { showTab } from "./topic-actions";

const TOPIC = "orders";
const KEY_NAME = "kafka-app";

/** A properties snippet as name → value (comment lines skipped). */
async function properties(block: Locator): Promise<Map<string, string>> {
  const text = (await block.locator("pre").textContent()) ?? "";
  const entries = text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const);
  return new Map(entries);
}

describe("Kafka client settings", () => {
  const ui = useConsolePage({ account: "Kafka Settings", topics: [compactedTopic(TOPIC)] });

  it("gives a new key's settings with its secret, and a real Kafka client signs in with them", async () => {
    await ui.page.goto("/api-keys");
    const form = ui.page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Key name").fill(KEY_NAME);
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = await ui.page.getByLabel("New API key secret").inputValue();
    const fresh = ui.page.getByRole("region", { name: "Kafka client settings for this key" });
    const rdkafka = fresh.getByRole("figure", { name: "librdkafka and kcat properties" });
    await waitOrExplain(ui.page, rdkafka, "kafka-settings-fresh");

    const props = await properties(rdkafka);
    const brokers = (props.get("bootstrap.servers") ?? "").split(",");
    expect(brokers.length).toBeGreaterThan(0);
    for (const broker of brokers) expect(broker).toMatch(/^[\w.-]+:\d+$/);
    expect(props.get("security.protocol")).toBe("SASL_PLAINTEXT");
    expect(props.get("sasl.mechanisms")).toBe("SCRAM-SHA-256");
    expect(props.get("sasl.password")).toBe(secret);
    const username = props.get("sasl.username") ?? "";

    await fresh.getByLabel("SASL mechanism").selectOption("SCRAM-SHA-512");
    const java = (await fresh.getByRole("figure", { name: "Java client properties" }).textContent()) ?? "";
    expect(java).toContain("sasl.mechanism=SCRAM-SHA-512");
    expect(java).toContain(
      `org.apache.kafka.common.security.scram.ScramLoginModule required username="${username}" password="${secret}";`,
    );
    const overflow = await saveScreenshotsAtWidths(ui.page, "kafka-settings-new-key");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });

    // The settings are real: kafkajs signs in with SCRAM-SHA-512 and sees the tenant's topic.
    const kafka = new Kafka({
      brokers,
      sasl: { mechanism: "scram-sha-512", username, password: secret },
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
    const admin = kafka.admin();
    try {
      await admin.connect();
      expect(await admin.listTopics()).toContain(TOPIC);
    } finally {
      await admin.disconnect();
    }
  });

  it("shows an existing key's settings with a placeholder for its secret, on the keys page and the topic page", async () => {
    await ui.page.getByRole("button", { name: "I have stored it" }).click();
    const listed = ui.page.getByRole("region", { name: "Kafka client settings", exact: true });
    const rdkafka = listed.getByRole("figure", { name: "librdkafka and kcat properties" });
    await rdkafka.waitFor();
    expect((await properties(rdkafka)).get("sasl.password")).toBe(`<secret of key ${KEY_NAME}>`);
    expect(await listed.getByLabel("API key").locator("option:checked").textContent()).toBe(KEY_NAME);

    await ui.page.goto(`/topics/${TOPIC}`);
    await showTab(ui.page, "Overview");
    const onTopic = ui.page.getByRole("region", { name: "Kafka client settings", exact: true });
    const topicBlock = onTopic.getByRole("figure", { name: "librdkafka and kcat properties" });
    // The key's name and secret placeholder come from the key list, which answers after the figure.
    await onTopic.getByLabel("API key").waitFor();
    expect(await topicBlock.textContent()).toContain(`kcat -F lastword.properties -C -t ${TOPIC}`);
    expect((await properties(topicBlock)).get("sasl.password")).toBe(`<secret of key ${KEY_NAME}>`);
    await onTopic.scrollIntoViewIfNeeded();
    const overflow = await saveScreenshotsAtWidths(ui.page, "kafka-settings-topic");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
