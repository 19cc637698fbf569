import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Kafka, logLevel, Partitioners } from "kafkajs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compactedTopic,
  createTopic,
  deletePolicyTopic,
  newAccount,
  newConsolePage,
  saveScreenshotsAtWidths,
  signUp,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { createKeySecret } from "./kafka-key";
import { bodyRows } from "./page-parts";
import { showTab } from "./topic-actions";

const run = promisify(execFile);
const TOPIC = "stock";
const VIEW = `${TOPIC}.latest`;
/** A delete-only topic: no key index, so no view. */
const EVENTS = "stock-events";
const KEY_NAME = "stock-app";
const WRITER = "stock-writer";
const READER = "stock-reader";
const KCAT = "stock-kcat";

/** The Kafka clients table's rows as [client id, role, software, last seen]. */
async function clientRows(page: Page): Promise<string[][]> {
  const table = page.getByRole("table", { name: "Kafka clients" });
  if ((await table.count()) === 0) return [];
  return bodyRows(table);
}

describe("the topic page's Kafka clients and latest-value view", () => {
  const ui = useConsolePage({
    account: "Kafka Clients",
    topics: [compactedTopic(TOPIC), deletePolicyTopic(EVENTS)],
  });
  let secret: string;
  /** kafkajs clients signed in with the key, one client id each (the clients card shows it). */
  let kafkaFor: (clientId: string) => Kafka;
  let workDir: string;
  /** librdkafka's own version, as kcat reports it (what its ApiVersions v3 names). */
  let librdkafkaVersion: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "lastword-kafka-clients-"));
    const { stdout } = await run("kcat", ["-V"]);
    librdkafkaVersion = /librdkafka ([\d.]+)/.exec(stdout)?.[1] ?? "";
    expect(librdkafkaVersion).not.toBe("");
    // Keys read only by default; this one also produces, so it asks for records:write.
    secret = await createKeySecret(ui.page, KEY_NAME, [
      "topics:read",
      "records:read",
      "records:write",
      "groups:read",
    ]);
  });
  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("names a compacted topic's view on the Kafka settings card, and its kcat snippet reads each key's latest", async () => {
    await ui.page.goto(`/topics/${TOPIC}`);
    await showTab(ui.page, "Overview");
    const card = ui.page.getByRole("region", { name: "Kafka client settings", exact: true });
    const view = card.getByRole("region", { name: "Latest-value view" });
    await waitOrExplain(ui.page, view, "kafka-clients-view");
    expect(await view.getByRole("heading").textContent()).toBe(`Latest-value view: ${VIEW}`);
    expect(await view.textContent()).toContain("each key's latest record");
    // The user name (the key's id) comes from the key list, which may answer after the figure.
    await card.getByLabel("API key").waitFor();

    const properties = (await card
      .getByRole("figure", { name: "librdkafka and kcat properties" })
      .locator("pre")
      .textContent()) as string;
    const prop = (name: string) =>
      new RegExp(`^${name.replaceAll(".", "\\.")}=(.*)$`, "m").exec(properties)?.[1];
    const brokers = (prop("bootstrap.servers") ?? "").split(",");
    const username = prop("sasl.username") ?? "";
    kafkaFor = (clientId) =>
      new Kafka({
        clientId,
        brokers,
        sasl: { mechanism: "scram-sha-256", username, password: secret },
        logLevel: logLevel.NOTHING,
        retry: { retries: 3 },
      });
    const producer = kafkaFor(WRITER).producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      await producer.send({
        topic: TOPIC,
        messages: [
          { key: "sku-1", value: "12" },
          { key: "sku-2", value: "4" },
          { key: "sku-1", value: "11" },
        ],
      });
    } finally {
      await producer.disconnect();
    }

    // The card's snippets, run as a user pastes them: the properties with the secret in place of
    // its placeholder, then the kcat line (a client id added so the clients card can name it).
    const propertiesFile = join(workDir, "lastword.properties");
    await writeFile(propertiesFile, properties.replace(`<secret of key ${KEY_NAME}>`, secret));
    const kcatLine = (await view
      .getByRole("figure", { name: "kcat: read the latest view" })
      .locator("pre")
      .textContent()) as string;
    expect(kcatLine).toBe(`kcat -F lastword.properties -C -t ${VIEW} -o beginning -e`);
    const [command, ...args] = kcatLine.split(" ");
    const { stdout } = await run(
      command as string,
      [...args, "-X", `client.id=${KCAT}`, "-q", "-f", "%k=%s\\n"],
      { cwd: workDir, timeout: 30_000 },
    );
    // sku-1's first value is superseded: the view serves only each key's latest.
    expect(stdout.split("\n").filter((line) => line !== "")).toEqual(["sku-2=4", "sku-1=11"]);
    // The root README's form of the same read: SASL PLAIN on the command line, kcat's own client id.
    const sasl = ["security.protocol=SASL_PLAINTEXT", "sasl.mechanisms=PLAIN", `sasl.username=${username}`];
    const readme = await run(
      "kcat",
      [
        ...["-b", brokers[0] as string, ...[...sasl, `sasl.password=${secret}`].flatMap((p) => ["-X", p])],
        ...["-C", "-t", VIEW, "-o", "beginning", "-e", "-f", "%k=%s\\n"],
      ],
      { timeout: 30_000 },
    );
    expect(readme.stdout).toBe(stdout);
    expect(await view.getByRole("figure", { name: "kafkajs: read the latest view" }).textContent()).toContain(
      `await consumer.subscribe({ topic: "${VIEW}", fromBeginning: true });`,
    );
    await view.scrollIntoViewIfNeeded();
    const overflow = await saveScreenshotsAtWidths(ui.page, "kafka-clients-latest-view");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });

    await ui.page.goto(`/topics/${EVENTS}`);
    await showTab(ui.page, "Overview");
    const eventsCard = ui.page.getByRole("region", { name: "Kafka client settings", exact: true });
    await eventsCard.getByRole("figure", { name: "librdkafka and kcat properties" }).waitFor();
    expect(await eventsCard.getByRole("region", { name: "Latest-value view" }).count()).toBe(0);
  });

  it("lists each client that produced or consumed, with its role, software and last seen, on the Consumers tab", async () => {
    const consumer = kafkaFor(READER).consumer({ groupId: "stock-readers" });
    let seen = 0;
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await consumer.run({
        eachMessage: async () => {
          seen++;
        },
      });
      await expect.poll(() => seen, { timeout: 30_000 }).toBe(3);
    } finally {
      await consumer.disconnect();
    }

    await ui.page.goto(`/topics/${TOPIC}`);
    await showTab(ui.page, "Consumers");
    // Workers write sightings behind and the card refreshes on its own: wait for all four.
    await expect
      .poll(async () => (await clientRows(ui.page)).map((r) => r.slice(0, 3)).sort(), { timeout: 60_000 })
      .toEqual([
        ["rdkafka", "consumer", `librdkafka ${librdkafkaVersion}`],
        [KCAT, "consumer", `librdkafka ${librdkafkaVersion}`],
        // kafkajs sends ApiVersions v2 at most, which carries no software name.
        [READER, "consumer", "not reported"],
        [WRITER, "producer", "not reported"],
      ]);
    for (const row of await clientRows(ui.page)) expect(row[3]).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    const overflow = await saveScreenshotsAtWidths(ui.page, "kafka-clients-card");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });

  it("shows none of them on another tenant's topic of the same name", async () => {
    const other = await newConsolePage(ui.browser);
    try {
      await signUp(other, newAccount("Other Stock"));
      await createTopic(other, compactedTopic(TOPIC));
      await other.goto(`/topics/${TOPIC}`);
      await showTab(other, "Consumers");
      await other
        .getByText("No Kafka client produced to or consumed from this topic in the last day.")
        .waitFor();
      expect(await clientRows(other)).toEqual([]);
      // The first tenant's page still lists its four.
      expect(await clientRows(ui.page)).toHaveLength(4);
    } finally {
      await other.context().close();
    }
  });
});
