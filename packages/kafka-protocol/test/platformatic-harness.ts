import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/*
 * Access to @platformatic/kafka's per-version API modules (dist/apis/<group>/<name>-v<N>.js), an
 * independent hand-written implementation of current flexible versions (kafka-protocol.md §4.6
 * step 4). The package only exports its client, so modules are loaded by file path; they are
 * untyped, hence the narrow interfaces below.
 */

const require = createRequire(import.meta.url);
const distDir = path.join(path.dirname(require.resolve("@platformatic/kafka")), "apis");

interface PlatformaticWriter {
  buffer: Buffer;
  appendInt16(value: number): PlatformaticWriter;
  appendInt32(value: number): PlatformaticWriter;
  appendString(value: string | null, compact?: boolean): PlatformaticWriter;
  appendTaggedFields(): PlatformaticWriter;
  appendFrom(other: PlatformaticWriter): PlatformaticWriter;
  prependLength(): PlatformaticWriter;
}
type Parser = (correlationId: number, apiKey: number, apiVersion: number, reader: unknown) => unknown;

export interface PlatformaticApi {
  apiKey: number;
  apiVersion: number;
  createRequest: (...args: unknown[]) => PlatformaticWriter;
  parseResponse: Parser;
  requestHeaderTags: boolean;
  responseHeaderTags: boolean;
}

interface ApiModule {
  createRequest: (...args: unknown[]) => PlatformaticWriter;
  parseResponse: Parser;
  api: ((connection: { send: (...args: unknown[]) => void }) => void) & { key: number; version: number };
}

/** Every API module, with the header flags it hands its connection (read by a stub connection). */
export async function platformaticApis(): Promise<PlatformaticApi[]> {
  const files = fs
    .readdirSync(distDir, { recursive: true, encoding: "utf8" })
    .filter((file) => /-v\d+\.js$/.test(file));
  const out: PlatformaticApi[] = [];
  for (const file of files) {
    // biome-ignore lint/plugin: the client's API modules are found by listing its dist folder.
    const mod = (await import(path.join(distDir, file))) as ApiModule;
    let flags: [boolean, boolean] = [true, true];
    mod.api({ send: (...args: unknown[]) => (flags = [args[4] as boolean, args[5] as boolean]) });
    out.push({
      apiKey: mod.api.key,
      apiVersion: mod.api.version,
      createRequest: mod.createRequest,
      parseResponse: mod.parseResponse,
      requestHeaderTags: flags[0],
      responseHeaderTags: flags[1],
    });
  }
  return out;
}

/** A request frame as @platformatic/kafka's network/connection.js `send` builds it. */
export function platformaticRequestFrame(
  api: PlatformaticApi,
  correlationId: number,
  clientId: string,
  args: unknown[],
) {
  // biome-ignore lint/plugin: the client's package exports hide its wire writer; loaded by file path.
  const { Writer } = require(path.join(distDir, "../protocol/writer.js")) as {
    Writer: { create(): PlatformaticWriter };
  };
  const writer = Writer.create()
    .appendInt16(api.apiKey)
    .appendInt16(api.apiVersion)
    .appendInt32(correlationId)
    .appendString(clientId, false);
  if (api.requestHeaderTags) writer.appendTaggedFields();
  return writer.appendFrom(api.createRequest(...args)).prependLength().buffer;
}

/** Parses one of our response frames as connection.js `#onData` does: size, correlation id, header tags, body. */
export function platformaticParseResponse(api: PlatformaticApi, frame: Buffer): unknown {
  // biome-ignore lint/plugin: the client's package exports hide its wire reader; loaded by file path.
  const { Reader } = require(path.join(distDir, "../protocol/reader.js")) as {
    Reader: { from(buffer: Buffer): unknown };
  };
  const body = frame.subarray(8 + (api.responseHeaderTags ? 1 : 0));
  try {
    return api.parseResponse(frame.readInt32BE(4), api.apiKey, api.apiVersion, Reader.from(body));
  } catch (error) {
    // Its parsers throw a ResponseError carrying the parsed response when any error code is set.
    const response = (error as { response?: unknown }).response;
    if (response === undefined) throw error;
    return response;
  }
}
