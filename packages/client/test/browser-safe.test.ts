import { encodeRecordBatch } from "@lastword/record-batch";
import { build } from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let browser: Browser;
// Chromium's start under a busy CI machine (the integration suites run beside this unit file) has
// taken over the default 10 s hook timeout; the flags keep it from reaching for the network.
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}, 60_000);
afterAll(() => browser?.close());

describe("the REST client in a browser (no Node Buffer, no Node built-ins)", () => {
  it("reads a stream and a state, produces binary frames and names a byte key, in Chromium", async () => {
    // platform "browser": a Node built-in anywhere on these paths fails the bundle itself.
    const bundle = await build({
      entryPoints: [new URL("./fixtures/browser-client.ts", import.meta.url).pathname],
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      globalName: "browserClient",
      logLevel: "error",
    });
    const batch = encodeRecordBatch(
      [
        { key: Buffer.from("k1"), value: Buffer.from("v1") },
        { key: Buffer.from("k2"), value: null, headers: [{ key: "h", value: Buffer.from("x") }] },
        { key: Buffer.from([0xff, 0x00]), value: Buffer.from([0xc3]), headers: [{ key: "é", value: null }] },
      ],
      { baseOffset: 7, appendTimeMs: 1 },
    );
    const page = await browser.newPage();
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
    const result = await page.evaluate(
      (bytes) =>
        (
          globalThis as unknown as { browserClient: { run(b: number[]): Promise<unknown> } }
        ).browserClient.run(bytes),
      [...batch],
    );
    await page.close();
    expect(result).toEqual({
      records: [
        [8, { type: "string", data: "k2" }, null, [{ key: "h", value: { type: "string", data: "x" } }]],
        [9, { type: "base64", data: "/wA=" }, { type: "base64", data: "ww==" }, [{ key: "é", value: null }]],
        [20, { type: "string", data: "k" }, null, []],
        { 0: 21 },
      ],
      state: [["/wA=", { type: "base64", data: "ww==" }]],
      offsets: { 0: 21 },
      sent: [
        // Partition frame omitted (by key), one batch frame: header 5, fixed 16, key 4+2, value 4+11, one header 2+1+4+2.
        {
          method: "POST",
          path: "/api/v1/topics/t/records?",
          bytes: 5 + 16 + 4 + 2 + 4 + 11 + 2 + 2 + 1 + 4 + 2,
        },
        { method: "GET", path: "/api/v1/topics/t/keys/%2B%2F8%3D?keyType=base64", bytes: 0 },
      ],
      stringBytes: [0xc3, 0xa9],
      base64Bytes: [0xff, 0x00],
      refused: "records[0].key.data is not base64: use the standard alphabet, padded to a multiple of 4.",
      buffer: "undefined",
    });
  });
});
