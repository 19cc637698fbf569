import { envelope, envelopeBytes, LastwordApiError, LastwordClient } from "@lastword/client";
import { beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

const h = useTenantWorld("client");
let client: LastwordClient;

beforeAll(() => {
  client = new LastwordClient({
    baseUrl: PUBLIC_URL,
    apiKey: h.key,
    fetch: (req) => h.server.handleRest(req),
  });
});

describe("typed REST client", () => {
  it("replays a compacted topic into the state its producer wrote", async () => {
    await client.topics.create({ name: "accounts", partitions: 2, preset: "state-table" });
    const expected = new Map<string, unknown>();
    const batch = [];
    for (let i = 0; i < 30; i++) {
      const key = `acct-${i % 7}`;
      const value = { balance: i };
      batch.push({ key: envelope.string(key), value: envelope.json(value) });
      expected.set(key, value);
    }
    await client.records.produce("accounts", batch);
    await client.records.deleteKey("accounts", "acct-3");
    expected.delete("acct-3");

    const state = new Map<string, unknown>();
    for (const partition of [0, 1]) {
      let offset = 0;
      for (;;) {
        const page = await client.records.read("accounts", partition, {
          offset,
          limit: 8,
          valueFormat: "json",
        });
        for (const r of page.records) {
          const key = new TextDecoder().decode(envelopeBytes(r.key)!);
          if (r.value === null) state.delete(key);
          else state.set(key, r.value.data);
        }
        if (page.nextOffset >= page.logEndOffset) break;
        offset = page.nextOffset;
      }
    }
    expect(state).toEqual(expected);
  });

  it("raises LastwordApiError with the problem's code", async () => {
    const error = await client.topics.get("missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LastwordApiError);
    expect(error).toMatchObject({ status: 404, code: "TOPIC_NOT_FOUND" });
    const groups = await client.consumerGroups.commitOffsets("g", [
      { topic: "accounts", partition: 0, offset: 3 },
    ]);
    expect(groups.committed).toBe(1);
    expect((await client.consumerGroups.get("g")).offsets[0]).toMatchObject({ offset: 3, topic: "accounts" });
  });
});
