import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createPrisma } from "@lastword/db";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { useConsolePage } from "./console-session";

const TOPIC = "user-events";

interface ProduceResponse {
  results: { partition: number; offset: number }[];
}
interface FetchResponse {
  records: { offset: number; timestamp: number | string }[];
  nextOffset: number;
}

async function createApiKeyInConsole(page: Page): Promise<string> {
  await page.goto("/api-keys");
  const form = page.getByRole("form", { name: "Create an API key" });
  await form.getByLabel("Key name").fill("e2e producer");
  // A new key reads only: the writes this program does are ticked on purpose.
  await form.getByRole("checkbox", { name: /records:write/ }).check();
  await form.getByRole("checkbox", { name: /groups:write/ }).check();
  await form.getByRole("button", { name: "Create key" }).click();
  const secret = page.getByLabel("New API key secret");
  await secret.waitFor();
  return secret.inputValue();
}

async function restCall(path: string, apiKey: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${inject("baseUrl")}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...init.headers },
  });
}

async function segmentFilesOf(
  topicName: string,
  partition: number,
): Promise<{ name: string; size: number }[]> {
  const prisma = createPrisma(inject("databaseUrl"), { maxConnections: 1 });
  try {
    const topic = await prisma.topic.findFirstOrThrow({ where: { name: topicName } });
    const dir = join(inject("dataDir"), topic.organizationId, topic.id, String(partition));
    const names = (await readdir(dir)).filter((name) => name.endsWith(".log"));
    return Promise.all(names.map(async (name) => ({ name, size: (await stat(join(dir, name))).size })));
  } finally {
    await prisma.$disconnect();
  }
}

describe("REST produce and read with a console-made API key", () => {
  const ui = useConsolePage({
    account: "Rest Tester",
    topics: [{ name: TOPIC, partitions: 2, cleanupPolicy: "compact" }],
  });
  let apiKey: string;
  let producedPartition: number;

  beforeAll(async () => {
    apiKey = await createApiKeyInConsole(ui.page);
  });

  it("shows the secret once, then lists the key by name without it", async () => {
    expect(apiKey).toMatch(/^lw_/);
    await ui.page.reload();
    await ui.page
      .getByRole("table", { name: "API keys" })
      .getByRole("rowheader", { name: "e2e producer" })
      .waitFor();
    expect(await ui.page.content()).not.toContain(apiKey);
  });

  it("answers a produce with its partition and offset, and reads the record back from disk", async () => {
    const produced = await restCall(`/topics/${TOPIC}/records`, apiKey, {
      method: "POST",
      body: JSON.stringify({
        records: [{ key: { type: "string", data: "user-1" }, value: { type: "string", data: "hello" } }],
      }),
    });
    expect(produced.status).toBe(200);
    const produceBody = (await produced.json()) as ProduceResponse;
    expect(produceBody).toEqual({ results: [{ partition: expect.any(Number), offset: expect.any(Number) }] });
    const { partition, offset } = produceBody.results[0]!;
    producedPartition = partition;

    const fetched = await restCall(`/topics/${TOPIC}/partitions/${partition}/records?offset=0`, apiKey);
    expect(fetched.status).toBe(200);
    const fetchBody = (await fetched.json()) as FetchResponse;
    expect(fetchBody.records).toEqual([
      {
        offset,
        timestamp: expect.anything(),
        key: { type: "string", data: "user-1" },
        value: { type: "string", data: "hello" },
        headers: [],
      },
    ]);
    expect(fetchBody.nextOffset).toBe(offset + 1);
    const timestampMs = new Date(fetchBody.records[0]!.timestamp).getTime();
    expect(Math.abs(Date.now() - timestampMs)).toBeLessThan(5 * 60_000);

    const segments = await segmentFilesOf(TOPIC, partition);
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.some((segment) => segment.size > 0)).toBe(true);
  });

  it("shows a consumer group committed over REST on the topic page, with its lag", async () => {
    const committed = await restCall("/consumer-groups/billing/offsets", apiKey, {
      method: "POST",
      body: JSON.stringify({ offsets: [{ topic: TOPIC, partition: producedPartition, offset: 0 }] }),
    });
    expect(committed.status).toBeLessThan(300);

    await ui.page.goto(`/topics/${TOPIC}?tab=consumers`);
    const row = ui.page.getByRole("table", { name: "Consumer groups" }).getByRole("row", { name: /billing/ });
    await row.waitFor();
    const cells = await row.getByRole("cell").allTextContents();
    // One record produced, none read: one record behind, at offset 0 of that partition.
    expect(cells[0]).toBe("1");
    expect(cells.at(-1)).toMatch(new RegExp(`^Partition ${producedPartition}: at offset 0, 1 behind \\(`));
  });

  it("addresses keys with a space or a slash by their percent-encoded path through Next", async () => {
    for (const [key, path] of [
      ["user 1", "user%201"],
      ["tenants/7", "tenants%2F7"],
    ] as const) {
      const produced = await restCall(`/topics/${TOPIC}/records`, apiKey, {
        method: "POST",
        body: JSON.stringify({
          records: [{ key: { type: "string", data: key }, value: { type: "string", data: "PII" } }],
        }),
      });
      expect(produced.status).toBe(200);
      expect((await restCall(`/topics/${TOPIC}/keys/${path}`, apiKey)).status, path).toBe(200);
      expect(
        (await restCall(`/topics/${TOPIC}/keys/${path}`, apiKey, { method: "DELETE" })).status,
        path,
      ).toBe(200);
      expect((await restCall(`/topics/${TOPIC}/keys/${path}`, apiKey)).status, `${path} deleted`).toBe(404);
    }
  });

  it("answers a JSON body over 8 MiB with 413 problem+json through Next", async () => {
    const value = "x".repeat(9 * 1024 * 1024);
    const res = await restCall(`/topics/${TOPIC}/records`, apiKey, {
      method: "POST",
      body: JSON.stringify({
        records: [{ key: { type: "string", data: "big" }, value: { type: "string", data: value } }],
      }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("refuses a request without a valid key with problem+json", async () => {
    const response = await restCall(`/topics/${TOPIC}/partitions/0/records?offset=0`, "lw_not-a-real-key");
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(await response.json()).toMatchObject({ status: 401, code: expect.any(String) });
  });

  it("stops accepting a key once it is revoked in the console", async () => {
    await ui.page.goto("/api-keys");
    const keys = ui.page.getByRole("table", { name: "API keys" });
    await keys.getByRole("button", { name: "Revoke e2e producer" }).click();
    await keys.getByRole("button", { name: "Confirm revoking e2e producer" }).click();
    await keys
      .getByRole("row", { name: /e2e producer/ })
      .getByText("Revoked")
      .waitFor();

    const response = await restCall(`/topics/${TOPIC}/partitions/0/records?offset=0`, apiKey);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
  });
});
