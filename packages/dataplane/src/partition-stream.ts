import { Agent, type IncomingMessage, request } from "node:http";
import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import { keyPath, type StreamMode } from "./key-protocol";
import type { OwnerDirectory, PartitionOwner } from "./owner-directory";
import { SECRET_HEADER } from "./protocol";
import { decodeStreamFrames, type StreamFrame } from "./stream-frames";

/** How long a worker may take to start answering a stream (it answers headers before reading the log). */
const STREAM_HEADERS_TIMEOUT_MS = 20_000;

export interface PartitionStreamRequest {
  partitionId: string;
  mode: StreamMode;
  /** Replay only: the first offset wanted. */
  offset?: number;
}

/**
 * Opens a streamed replay or snapshot of one partition on its owner. Backpressure is the socket's:
 * the response is only read as fast as the caller iterates. A NOT_OWNER/unreachable answer before
 * the first byte is retried once against the next owner; a failure mid-stream is the caller's.
 */
export class PartitionStreams {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 60_000 });

  readonly owners: OwnerDirectory;
  readonly secret: string;
  readonly ownerWaitMs: number;

  constructor(owners: OwnerDirectory, secret: string, ownerWaitMs: number) {
    this.owners = owners;
    this.secret = secret;
    this.ownerWaitMs = ownerWaitMs;
  }

  async *open(input: PartitionStreamRequest): AsyncGenerator<StreamFrame> {
    const deadlineMs = Date.now() + this.ownerWaitMs;
    let owner = await this.owners.resolve(input.partitionId, deadlineMs);
    let response: IncomingMessage;
    for (let attempt = 0; ; attempt++) {
      try {
        response = await this.#request(owner, input);
        break;
      } catch (error) {
        this.owners.invalidate(input.partitionId);
        if (attempt > 0 || !(error instanceof DataPlaneError) || !error.retriable) throw error;
        owner = await this.owners.resolve(input.partitionId, deadlineMs, owner);
      }
    }
    try {
      yield* decodeStreamFrames(response);
    } finally {
      // Ending early (the consumer stopped) must not leave the worker writing into a full socket.
      if (!response.complete) response.destroy();
    }
  }

  close(): void {
    this.#agent.destroy();
  }

  #request(owner: PartitionOwner, input: PartitionStreamRequest): Promise<IncomingMessage> {
    const url = new URL(keyPath.stream(input.partitionId), owner.address);
    url.searchParams.set("mode", input.mode);
    if (input.offset !== undefined) url.searchParams.set("offset", String(input.offset));
    return new Promise((resolve, reject) => {
      const outgoing = request(url, { agent: this.#agent, headers: { [SECRET_HEADER]: this.secret } });
      // A worker that never starts answering must become a retriable error, not a stream that hangs.
      const noAnswer = setTimeout(() => {
        outgoing.destroy(new Error(`no answer in ${STREAM_HEADERS_TIMEOUT_MS} ms`));
      }, STREAM_HEADERS_TIMEOUT_MS);
      outgoing.on("close", () => clearTimeout(noAnswer));
      outgoing.on("response", (incoming) => {
        clearTimeout(noAnswer);
        if (incoming.statusCode === 200) return resolve(incoming);
        readError(incoming, owner).then(reject, reject);
      });
      outgoing.on("error", (error) => {
        const message = `worker ${owner.workerId} at ${owner.address} is unreachable (${error.message})`;
        reject(new DataPlaneError("PARTITION_UNAVAILABLE", message, { cause: error }));
      });
      outgoing.end();
    });
  }
}

async function readError(incoming: IncomingMessage, owner: PartitionOwner): Promise<DataPlaneError> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      code?: unknown;
      message?: unknown;
      retriable?: unknown;
    };
    if (isDataPlaneErrorCode(body.code)) {
      return new DataPlaneError(body.code, String(body.message), { retriable: body.retriable === true });
    }
  } catch {
    // fall through: not one of our error bodies
  }
  return new DataPlaneError("INTERNAL", `worker ${owner.workerId} answered HTTP ${incoming.statusCode}`);
}
