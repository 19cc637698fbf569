import { Kafka, logLevel } from "kafkajs";
import type { Page } from "playwright-core";
import { waitOrExplain } from "./console-session";
import { showTab } from "./topic-actions";

/** A new API key's secret, created through the console's own tRPC endpoint as the page's member. */
export async function createKeySecret(page: Page, name: string, scopes: readonly string[]): Promise<string> {
  return page.evaluate(
    async ({ name, scopes }) => {
      const res = await fetch("/api/trpc/apiKeys.create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, scopes }),
      });
      if (!res.ok) throw new Error(`apiKeys.create answered ${res.status}`);
      return ((await res.json()) as { result: { data: { key: string } } }).result.data.key;
    },
    { name, scopes },
  );
}

/**
 * A new API key with `scopes`, created through the console's own tRPC endpoint as the page's
 * member, and a kafkajs client factory signed in with it: the brokers and SASL user name are read
 * from `topic`'s Kafka client settings card, as a user would copy them.
 */
export async function kafkaWithNewKey(
  page: Page,
  options: { name: string; scopes: readonly string[]; topic: string },
): Promise<(clientId: string) => Kafka> {
  const secret = await createKeySecret(page, options.name, options.scopes);
  await page.goto(`/topics/${options.topic}`);
  await showTab(page, "Overview");
  const card = page.getByRole("region", { name: "Kafka client settings", exact: true });
  const figure = card.getByRole("figure", { name: "librdkafka and kcat properties" });
  await waitOrExplain(page, figure, "kafka-key-settings");
  // The user name (the key's id) comes from the key list, which may answer after the figure.
  await card.getByLabel("API key").waitFor();
  return kafkaFromProperties((await figure.locator("pre").textContent()) ?? "", secret);
}

/**
 * kafkajs clients for the console's librdkafka properties block (`bootstrap.servers`,
 * `sasl.username`) and a key's secret: one client id each.
 */
export function kafkaFromProperties(properties: string, secret: string): (clientId: string) => Kafka {
  const prop = (name: string) =>
    new RegExp(`^${name.replaceAll(".", "\\.")}=(.*)$`, "m").exec(properties)?.[1] ?? "";
  return (clientId) =>
    new Kafka({
      clientId,
      brokers: prop("bootstrap.servers").split(","),
      sasl: { mechanism: "scram-sha-256", username: prop("sasl.username"), password: secret },
      logLevel: logLevel.NOTHING,
      retry: { retries: 3 },
    });
}
