import { Agent, type IncomingHttpHeaders, type IncomingMessage, request } from "node:http";
import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import type { StreamMode } from "./key-protocol";
import type { OwnerDirectory, PartitionOwner } from "./owner-directory";
import { SECRET_HEADER } from "./protocol";
import { dataPlanePath } from "./routes";
import { decodeStreamFrames, type StreamFrame, type StreamPiece, splitStreamFrames } from "./stream-frames";

/** How long a worker may take to start answering a stream (it answers headers before reading the log). */
const STREAM_HEADERS_TIMEOUT_MS = 20_000;

/** Socket chunks (≤ 64 KiB each) read ahead of the consumer before the socket is paused. */
const CHUNKS_AHEAD = 16;

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

  /** The partition's frames with every record decoded. */
  open(input: PartitionStreamRequest): AsyncGenerator<StreamFrame> {
    return this.#read(input, decodeStreamFrames);
  }

  /**
   * The partition's frames undecoded: whole batch frames as the worker sent them, then the end, for
   * a reader that only forwards them (the REST binary stream).
   */
  openPieces(input: PartitionStreamRequest): AsyncGenerator<StreamPiece> {
    return this.#read(input, splitStreamFrames);
  }

  /**
   * A GET on the partition's owner answered with stream frames (what fetch is): resolves once the
   * 200's headers are in, NOT_OWNER/unreachable before then retried once against the next owner.
   * A connection silent for `idleTimeoutMs` (a worker that stalled) is dropped: before the headers
   * that is an unreachable owner, after them a stream that broke off.
   */
  async openFrames(
    partitionId: string,
    path: string,
    query: Record<string, number | undefined>,
    idleTimeoutMs: number,
  ): Promise<{ headers: IncomingHttpHeaders; frames: AsyncGenerator<StreamFrame> }> {
    const target = (owner: PartitionOwner) => {
      const url = new URL(path, owner.address);
      for (const [name, value] of Object.entries(query))
        if (value !== undefined) url.searchParams.set(name, String(value));
      return url;
    };
    const response = await this.#open(partitionId, target, idleTimeoutMs);
    return { headers: response.headers, frames: framesOf(response, decodeStreamFrames) };
  }

  async *#read<T>(
    input: PartitionStreamRequest,
    frames: (chunks: AsyncIterable<Buffer>) => AsyncGenerator<T>,
  ): AsyncGenerator<T> {
    const response = await this.#open(input.partitionId, (owner) => streamUrl(owner, input));
    yield* framesOf(response, frames);
  }

  async #open(
    partitionId: string,
    target: (owner: PartitionOwner) => URL,
    idleTimeoutMs?: number,
  ): Promise<IncomingMessage> {
    const deadlineMs = Date.now() + this.ownerWaitMs;
    let owner = await this.owners.resolve(partitionId, deadlineMs);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#request(owner, target(owner), idleTimeoutMs);
      } catch (error) {
        this.owners.invalidate(partitionId);
        if (attempt > 0 || !(error instanceof DataPlaneError) || !error.retriable) throw error;
        owner = await this.owners.resolve(partitionId, deadlineMs, owner);
      }
    }
  }

  close(): void {
    this.#agent.destroy();
  }

  #request(owner: PartitionOwner, url: URL, idleTimeoutMs?: number): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const outgoing = request(url, { agent: this.#agent, headers: { [SECRET_HEADER]: this.secret } });
      if (idleTimeoutMs !== undefined) {
        outgoing.setTimeout(idleTimeoutMs, () => {
          outgoing.destroy(new Error(`nothing from the worker in ${idleTimeoutMs} ms`));
        });
      }
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

function streamUrl(owner: PartitionOwner, input: PartitionStreamRequest): URL {
  const url = new URL(dataPlanePath.partition("stream", input.partitionId), owner.address);
  url.searchParams.set("mode", input.mode);
  if (input.offset !== undefined) url.searchParams.set("offset", String(input.offset));
  return url;
}

async function* framesOf<T>(
  response: IncomingMessage,
  frames: (chunks: AsyncIterable<Buffer>) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  try {
    yield* frames(chunksOf(response));
  } finally {
    // Ending early (the consumer stopped) must not leave the worker writing into a full socket.
    if (!response.complete) response.destroy();
  }
}

/**
 * The body's chunks as the socket delivered them. (A Readable's own async iterator hands out
 * `read()`, which joins whatever is buffered into a new buffer: a copy of the stream per hop.) A few
 * chunks are queued ahead at most; then the socket is paused, which is what slows the worker.
 */
export async function* chunksOf(incoming: IncomingMessage): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let finished = false;
  let failure: DataPlaneError | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
    if (queue.length >= CHUNKS_AHEAD) incoming.pause();
    notify();
  };
  const onEnd = () => {
    finished = true;
    notify();
  };
  // A connection that breaks mid-stream (the worker died or shut down) is worth a retry or a resume.
  const lost = (why: string) =>
    new DataPlaneError("PARTITION_UNAVAILABLE", `the worker's stream broke off (${why})`, {
      retriable: true,
    });
  const onClose = () => {
    if (!incoming.complete) failure ??= lost("connection closed");
    onEnd();
  };
  const onError = (error: Error) => {
    failure = lost(error.message);
    notify();
  };
  incoming.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onError);
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk) {
        if (incoming.isPaused() && queue.length < CHUNKS_AHEAD / 2) incoming.resume();
        yield chunk;
      } else if (failure) throw failure;
      else if (finished) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    incoming.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onError);
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
