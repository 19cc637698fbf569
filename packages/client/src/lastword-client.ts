import type { Problem, RouterInputs, RouterOutputs } from "@lastword/api";
import { FRAMES_CONTENT_TYPE } from "./binary-frames";
import { toBase64, utf8Bytes } from "./bytes";
import { encodeProduceFrames } from "./envelopes";
import { LastwordApiError } from "./problem-error";
import {
  type PartitionOffsets,
  type ReplayedState,
  readStream,
  replayToMap,
  type StreamRecord,
  type TailOptions,
  tail,
} from "./replay";

type In = RouterInputs;
type Out = RouterOutputs;
type Query = Record<string, string | number | boolean | undefined>;

export interface LastwordClientOptions {
  /** The service's base URL, e.g. http://localhost:3000 (the client adds /api/v1). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch; tests pass a handler that answers in-process. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * How replay, snapshot and tail are read: `binary` frames (default; records go from the server's
   * worker to the Map without JSON) or `ndjson` (what curl sees; for comparing or debugging).
   */
  streamFormat?: "binary" | "ndjson";
  /**
   * How `records.produce` sends its records: `binary` frames (default; the server decodes no JSON
   * or base64, `encodeProduceFrames`) or `json` (the envelopes as a JSON document). Same answer.
   */
  produceFormat?: "binary" | "json";
}

const seg = encodeURIComponent;

/**
 * A key as the `{key}` path segment of the key routes: text percent-encoded as it is, bytes as
 * their base64 with `keyType=base64` (the server decodes the segment once, then the base64).
 * `.` and `..` go as base64 too: URL parsers resolve them (even as %2E) as dot segments.
 */
function keyPath(
  key: string | Uint8Array,
  keyType: "string" | "base64" | undefined,
): { segment: string; keyType: "string" | "base64" } {
  const dotSegment = key === "." || key === "..";
  if (typeof key === "string" && !dotSegment) return { segment: seg(key), keyType: keyType ?? "string" };
  return { segment: seg(toBase64(typeof key === "string" ? utf8Bytes(key) : key)), keyType: "base64" };
}

/** A typed client for the REST API `/api/v1`; every method maps to one route. */
export class LastwordClient {
  readonly #base: string;
  readonly #apiKey: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #streamAccept: string;
  readonly #produceBinary: boolean;

  constructor(options: LastwordClientOptions) {
    this.#base = `${options.baseUrl.replace(/\/$/, "")}/api/v1`;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#streamAccept = options.streamFormat === "ndjson" ? "application/x-ndjson" : FRAMES_CONTENT_TYPE;
    this.#produceBinary = options.produceFormat !== "json";
  }

  async #call<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; frames?: Uint8Array; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.frames !== undefined) {
      headers["content-type"] = FRAMES_CONTENT_TYPE;
      body = options.frames;
    } else if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const response = await this.#fetch(new Request(url, { method, headers, body }));
    if (!response.ok) {
      const problem = (await response.json()) as Problem;
      const retryAfter = response.headers.get("retry-after");
      throw new LastwordApiError(problem, retryAfter === null ? null : Number(retryAfter));
    }
    return (await response.json()) as T;
  }

  /** A streaming route's response (errors before the first record become LastwordApiError). */
  async #open(
    path: string,
    query: Record<string, string | undefined>,
    signal?: AbortSignal,
  ): Promise<Response> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    const response = await this.#fetch(
      new Request(url, {
        headers: { authorization: `Bearer ${this.#apiKey}`, accept: this.#streamAccept },
        signal,
      }),
    );
    if (!response.ok) {
      const retryAfter = response.headers.get("retry-after");
      throw new LastwordApiError(
        (await response.json()) as Problem,
        retryAfter === null ? null : Number(retryAfter),
      );
    }
    return response;
  }

  /** Cold start: the topic's state as a Map plus the offsets it is consistent with (snapshot by default). */
  replayToMap(topic: string, options: { via?: "snapshot" | "replay" } = {}): Promise<ReplayedState> {
    return replayToMap((path, query) => this.#open(path, query), topic, options);
  }

  /** Every record after `offsets`, as it is written (long poll); leave the loop or abort to stop. */
  tail(topic: string, offsets: PartitionOffsets, options: TailOptions = {}): AsyncGenerator<StreamRecord> {
    return tail((path, query, signal) => this.#open(path, query, signal), topic, offsets, options);
  }

  /** The raw replay (`records/stream`) or snapshot stream: records, then the offsets as return value. */
  async stream(
    topic: string,
    options: { mode?: "replay" | "snapshot"; from?: "earliest" | "latest"; offsets?: PartitionOffsets } = {},
  ): Promise<AsyncGenerator<StreamRecord, PartitionOffsets, undefined>> {
    const path =
      options.mode === "snapshot" ? `/topics/${seg(topic)}/snapshot` : `/topics/${seg(topic)}/records/stream`;
    const offsets = options.offsets
      ? Object.entries(options.offsets)
          .map(([p, o]) => `${p}:${o}`)
          .join(",")
      : undefined;
    return readStream(await this.#open(path, { from: options.from, offsets: offsets || undefined }));
  }

  tenant(): Promise<Out["tenant"]["current"]> {
    return this.#call("GET", "/tenant");
  }

  readonly topics = {
    create: (input: In["topics"]["create"]): Promise<Out["topics"]["create"]> =>
      this.#call("POST", "/topics", { body: input }),
    list: (input: In["topics"]["list"] = {}): Promise<Out["topics"]["list"]> =>
      this.#call("GET", "/topics", { query: input }),
    get: (topic: string): Promise<Out["topics"]["get"]> => this.#call("GET", `/topics/${seg(topic)}`),
    delete: (topic: string): Promise<Out["topics"]["delete"]> =>
      this.#call("DELETE", `/topics/${seg(topic)}`),
    alterConfigs: (
      topic: string,
      input: Omit<In["topics"]["alterConfigs"], "topic">,
    ): Promise<Out["topics"]["alterConfigs"]> =>
      this.#call("PATCH", `/topics/${seg(topic)}/configs`, { body: input }),
    addPartitions: (
      topic: string,
      input: Omit<In["topics"]["addPartitions"], "topic">,
    ): Promise<Out["topics"]["addPartitions"]> =>
      this.#call("POST", `/topics/${seg(topic)}/partitions`, { body: input }),
  };

  readonly records = {
    produce: (
      topic: string,
      records: In["records"]["produce"]["records"],
      options: { idempotencyKey?: string } = {},
    ): Promise<Out["records"]["produce"]> =>
      this.#call("POST", `/topics/${seg(topic)}/records`, {
        ...(this.#produceBinary ? { frames: encodeProduceFrames(records) } : { body: { records } }),
        headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {},
      }),
    read: (
      topic: string,
      partition: number,
      query: Omit<In["records"]["read"], "topic" | "partition"> = {},
    ): Promise<Out["records"]["read"]> =>
      this.#call("GET", `/topics/${seg(topic)}/partitions/${partition}/records`, { query }),
    /** `key` as text (its UTF-8 bytes; or base64 with `keyType: "base64"`) or as bytes. */
    deleteKey: (
      topic: string,
      key: string | Uint8Array,
      keyType: "string" | "base64" = "string",
    ): Promise<Out["records"]["deleteKey"]> => {
      const path = keyPath(key, keyType);
      return this.#call("DELETE", `/topics/${seg(topic)}/keys/${path.segment}`, {
        query: { keyType: path.keyType },
      });
    },
  };

  readonly consumerGroups = {
    commitOffsets: (
      group: string,
      offsets: In["consumerGroups"]["commitOffsets"]["offsets"],
    ): Promise<Out["consumerGroups"]["commitOffsets"]> =>
      this.#call("POST", `/consumer-groups/${seg(group)}/offsets`, { body: { offsets } }),
    get: (group: string): Promise<Out["consumerGroups"]["get"]> =>
      this.#call("GET", `/consumer-groups/${seg(group)}`),
    lag: (group: string): Promise<Out["consumerGroups"]["lag"]> =>
      this.#call("GET", `/consumer-groups/${seg(group)}/lag`),
    reset: (
      group: string,
      input: Omit<In["consumerGroups"]["reset"], "group">,
    ): Promise<Out["consumerGroups"]["reset"]> =>
      this.#call("POST", `/consumer-groups/${seg(group)}/reset`, { body: input }),
    listForTopic: (topic: string): Promise<Out["consumerGroups"]["listForTopic"]> =>
      this.#call("GET", `/topics/${seg(topic)}/consumer-groups`),
  };

  readonly keys = {
    /** `key` as text (its UTF-8 bytes; or base64 with `keyType: "base64"`) or as bytes. */
    get: (
      topic: string,
      key: string | Uint8Array,
      query: Omit<In["keys"]["get"], "topic" | "key"> = {},
    ): Promise<Out["keys"]["get"]> => this.#getKey(topic, key, query, ""),
    versions: (
      topic: string,
      key: string | Uint8Array,
      query: Omit<In["keys"]["versions"], "topic" | "key"> = {},
    ): Promise<Out["keys"]["versions"]> => this.#getKey(topic, key, query, "/versions"),
  };

  /** GET on a key's route (`below` it): the key stands in the path as `keyPath` writes it, with its keyType. */
  #getKey<T>(
    topic: string,
    key: string | Uint8Array,
    query: Query & { keyType?: "string" | "base64" | undefined },
    below: "" | "/versions",
  ): Promise<T> {
    const path = keyPath(key, query.keyType);
    return this.#call("GET", `/topics/${seg(topic)}/keys/${path.segment}${below}`, {
      query: { ...query, keyType: path.keyType },
    });
  }

  readonly apiKeys = {
    create: (input: In["apiKeys"]["create"]): Promise<Out["apiKeys"]["create"]> =>
      this.#call("POST", "/api-keys", { body: input }),
    list: (): Promise<Out["apiKeys"]["list"]> => this.#call("GET", "/api-keys"),
    revoke: (id: string): Promise<Out["apiKeys"]["revoke"]> => this.#call("DELETE", `/api-keys/${seg(id)}`),
  };
}
