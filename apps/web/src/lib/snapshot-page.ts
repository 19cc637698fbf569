import type { Envelope } from "@lastword/envelope";

export interface SnapshotRow {
  partition: number;
  offset: number;
  timestamp: number;
  key: Envelope | null;
  value: Envelope | null;
}

export interface SnapshotPage {
  rows: SnapshotRow[];
  /** Another key follows the page. */
  hasMore: boolean;
}

/**
 * One page of the topic snapshot's lines (NDJSON: one line per live key, partition after partition,
 * then an end line, or an error line when the stream failed). Stops reading as soon as it knows
 * whether a next page exists, so a page costs skip + take + 1 lines, never the whole topic.
 */
export async function collectSnapshotPage(
  lines: AsyncIterable<string>,
  skip: number,
  take: number,
): Promise<SnapshotPage> {
  const rows: SnapshotRow[] = [];
  let seen = 0;
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const parsed = JSON.parse(line) as Partial<SnapshotRow> & { end?: true; error?: { detail?: string } };
    if (parsed.error) throw new Error(parsed.error.detail ?? "The snapshot stream failed.");
    if (parsed.end) break;
    if (seen >= skip + take) return { rows, hasMore: true };
    if (seen >= skip) rows.push(parsed as SnapshotRow);
    seen += 1;
  }
  return { rows, hasMore: false };
}

/** The lines of a streamed body; cancelling the iteration cancels the body (and the server's read). */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      yield* lines;
    }
    if (buffered !== "") yield buffered;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Reads one page of GET /api/v1/topics/{topic}/snapshot with the console's session. */
export async function fetchSnapshotPage(
  topic: string,
  skip: number,
  take: number,
  signal?: AbortSignal,
): Promise<SnapshotPage> {
  const response = await fetch(`/api/v1/topics/${encodeURIComponent(topic)}/snapshot`, {
    signal: signal ?? null,
    headers: { accept: "application/x-ndjson" },
  });
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => null)) as { detail?: string } | null;
    throw new Error(problem?.detail ?? `The snapshot answered ${response.status}.`);
  }
  return collectSnapshotPage(ndjsonLines(response.body), skip, take);
}
