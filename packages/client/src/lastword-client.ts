import type { Problem, RouterInputs, RouterOutputs } from "@lastword/api";
import { LastwordApiError } from "./problem-error";

type In = RouterInputs;
type Out = RouterOutputs;
type Query = Record<string, string | number | boolean | undefined>;

export interface LastwordClientOptions {
  /** The service's base URL, e.g. http://localhost:3000 (the client adds /api/v1). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch; tests pass a handler that answers in-process. */
  fetch?: (request: Request) => Promise<Response>;
}

const seg = encodeURIComponent;

/** A typed client for the REST API `/api/v1`; every method maps to one route. */
export class LastwordClient {
  readonly #base: string;
  readonly #apiKey: string;
  readonly #fetch: (request: Request) => Promise<Response>;

  constructor(options: LastwordClientOptions) {
    this.#base = `${options.baseUrl.replace(/\/$/, "")}/api/v1`;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
  }

  async #call<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.#fetch(
      new Request(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      }),
    );
    if (!response.ok) {
      const problem = (await response.json()) as Problem;
      const retryAfter = response.headers.get("retry-after");
      throw new LastwordApiError(problem, retryAfter === null ? null : Number(retryAfter));
    }
    return (await response.json()) as T;
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
        body: { records },
        headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {},
      }),
    read: (
      topic: string,
      partition: number,
      query: Omit<In["records"]["read"], "topic" | "partition"> = {},
    ): Promise<Out["records"]["read"]> =>
      this.#call("GET", `/topics/${seg(topic)}/partitions/${partition}/records`, { query }),
    deleteKey: (
      topic: string,
      key: string,
      keyType: "string" | "base64" = "string",
    ): Promise<Out["records"]["deleteKey"]> =>
      this.#call("DELETE", `/topics/${seg(topic)}/keys/${seg(key)}`, { query: { keyType } }),
  };

  readonly consumerGroups = {
    commitOffsets: (
      group: string,
      offsets: In["consumerGroups"]["commitOffsets"]["offsets"],
    ): Promise<Out["consumerGroups"]["commitOffsets"]> =>
      this.#call("POST", `/consumer-groups/${seg(group)}/offsets`, { body: { offsets } }),
    get: (group: string): Promise<Out["consumerGroups"]["get"]> =>
      this.#call("GET", `/consumer-groups/${seg(group)}`),
  };

  readonly apiKeys = {
    create: (input: In["apiKeys"]["create"]): Promise<Out["apiKeys"]["create"]> =>
      this.#call("POST", "/api-keys", { body: input }),
    list: (): Promise<Out["apiKeys"]["list"]> => this.#call("GET", "/api-keys"),
    revoke: (id: string): Promise<Out["apiKeys"]["revoke"]> => this.#call("DELETE", `/api-keys/${seg(id)}`),
  };
}
