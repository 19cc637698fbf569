"use client";

import type { RouterOutputs } from "@lastword/api";
import { useCallback, useEffect, useRef, useState } from "react";
import type { BrowsedRecord } from "@/lib/record-export";
import { SCAN_PER_REQUEST, type SearchInput } from "./message-search-input";

type SearchAnswer = RouterOutputs["records"]["search"];
/** Why a search ended: the server's reasons for its last request, or the member's Stop. */
type StopReason = "end" | "limit" | "scanLimit" | "byteLimit" | "stopped";
interface Position {
  partition: number;
  offset: number;
}
export interface Scan {
  /** The filters and bounds of the search shown, reused to scan further or follow. */
  input: SearchInput;
  /** Records the search may read over all its requests. */
  budget: number;
  positions: Position[];
  scanned: number;
  bytes: number;
  stoppedBy: StopReason;
  /** Each partition's log start when the search began (a read from the earliest starts there). */
  logStarts?: ReadonlyMap<number, number>;
}
/** What a live tail follows: the filters typed when it started, from where the search shown stopped. */
interface Tail {
  base: SearchInput;
  positions: Position[] | null;
}

/** Most rows a live tail keeps: the oldest go first, so the page stays quick however long it follows. */
const TAIL_KEEP = 5_000;
/** Most bytes one search reads over all its requests (each request has the server's own bounds). */
const SEARCH_BYTES = 1024 * 1024 * 1024;

/** What a search in progress has done so far, shown as it reads. */
export interface Progress {
  scanned: number;
  bytes: number;
  matches: number;
}
/** How soon a live tail asks again after an answer. */
const TAIL_POLL_MS = 1_000;

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The records the message browser shows and the three ways it gets them: a search, a scan further
 * from where the last one stopped, and a live tail. They share one table, so they live in one hook:
 * starting a search stops the tail, and the tail starts from the search shown.
 */
export function useMessageResults(topic: string, run: (input: SearchInput) => Promise<SearchAnswer>) {
  const [records, setRecords] = useState<BrowsedRecord[]>([]);
  const [scan, setScan] = useState<Scan | null>(null);
  const [busy, setBusy] = useState(false);
  const [readError, setReadError] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [tail, setTail] = useState<Tail | null>(null);

  const [progress, setProgress] = useState<Progress | null>(null);
  /**
   * The search under way. Stop flags it: it ends once its request in flight answers (each is
   * bounded by the server), keeping what that found. A newer search supersedes it: it ends
   * without a trace.
   */
  const current = useRef<{ stopped: boolean; superseded: boolean } | null>(null);
  const [stopping, setStopping] = useState(false);

  /**
   * Reads request by request from `positions` (or the input's start), each request at most the
   * input's scanLimit, until the log ends, `limit` matches, `budget` records or SEARCH_BYTES are
   * read, or Stop; what each request finds is shown as it arrives. The latest records are one
   * request (their start is each partition's last `limit`).
   */
  const scanFrom = async (
    input: SearchInput,
    budget: number,
    positions: Position[] | null,
    before: Progress,
    logStarts: ReadonlyMap<number, number> | undefined,
  ) => {
    const token = { stopped: false, superseded: false };
    if (current.current) current.current.superseded = true;
    current.current = token;
    setBusy(true);
    setStopping(false);
    setReadError(null);
    const done = { ...before };
    let at = positions;
    let starts = logStarts;
    let stoppedBy: StopReason = "end";
    try {
      for (;;) {
        const left = budget - (done.scanned - before.scanned);
        const answer = await run({
          ...input,
          start: at ? { from: "offsets", offsets: at } : input.start,
          limit: Math.max(1, (input.limit ?? 100) - (done.matches - before.matches)),
          scanLimit: Math.max(1, Math.min(input.scanLimit ?? SCAN_PER_REQUEST, left)),
        });
        if (token.superseded) return;
        at = answer.positions.map(({ partition, offset }) => ({ partition, offset }));
        starts ??= new Map(answer.positions.map((p) => [p.partition, p.logStartOffset]));
        done.scanned += answer.scanned;
        done.bytes += answer.bytesScanned;
        done.matches += answer.records.length;
        setRecords((rows) => [...rows, ...answer.records]);
        setProgress({ ...done });
        if (token.stopped) {
          stoppedBy = "stopped";
          break;
        }
        if (answer.stoppedBy === "end" || input.start?.from === "latest") {
          stoppedBy = answer.stoppedBy === "limit" ? "limit" : "end";
          break;
        }
        if (done.matches - before.matches >= (input.limit ?? 100)) {
          stoppedBy = "limit";
          break;
        }
        if (done.scanned - before.scanned >= budget) {
          stoppedBy = "scanLimit";
          break;
        }
        if (done.bytes - before.bytes >= SEARCH_BYTES) {
          stoppedBy = "byteLimit";
          break;
        }
      }
    } catch (error) {
      if (token.superseded) return;
      setReadError(`We could not read ${topic}: ${reason(error)}`);
      stoppedBy = "stopped";
    } finally {
      if (current.current === token) {
        current.current = null;
        setBusy(false);
        setStopping(false);
      }
    }
    if (token.superseded || at === null) return;
    // A stopped search still shows what it read, and continues from there.
    setScan({ input, budget, positions: at, ...done, stoppedBy, ...(starts ? { logStarts: starts } : {}) });
  };

  const search = async (input: SearchInput, budget: number) => {
    setTail(null);
    setScan(null);
    setRecords([]);
    setExpanded(new Set());
    setProgress({ scanned: 0, bytes: 0, matches: 0 });
    await scanFrom(input, budget, null, { scanned: 0, bytes: 0, matches: 0 }, undefined);
  };

  const scanFurther = async () => {
    if (!scan) return;
    const input = { ...scan.input, start: { from: "offsets" as const, offsets: scan.positions } };
    const before = { scanned: scan.scanned, bytes: scan.bytes, matches: 0 };
    await scanFrom(input, scan.budget, scan.positions, before, scan.logStarts);
  };

  /** Stops the search under way after its request; what it found stays, with where it got to. */
  const stop = () => {
    if (!current.current) return;
    current.current.stopped = true;
    setStopping(true);
  };

  /** Follows new records matching `base`, from where the search shown stopped (or the latest). */
  const follow = (base: SearchInput) => {
    if (current.current) current.current.superseded = true;
    current.current = null;
    setBusy(false);
    setTail({ base, positions: scan?.positions ?? null });
  };
  const stopFollowing = () => setTail(null);

  // The live tail asks again a moment after each answer and appends what is new. It starts with an
  // empty table: what it shows is what it followed.
  useEffect(() => {
    if (!tail) return;
    let positions = tail.positions;
    let scanned = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setRecords([]);
    setExpanded(new Set());
    const poll = async () => {
      try {
        const start = positions
          ? { from: "offsets" as const, offsets: positions }
          : { from: "latest" as const };
        const answer = await run({ ...tail.base, start });
        if (stopped) return;
        positions = answer.positions;
        scanned += answer.scanned;
        setRecords((rows) => [...rows, ...answer.records].slice(-TAIL_KEEP));
        setScan({
          input: tail.base,
          budget: SCAN_PER_REQUEST,
          positions: answer.positions,
          scanned,
          bytes: 0,
          stoppedBy: answer.stoppedBy === "limit" ? "limit" : "end",
        });
        setReadError(null);
      } catch (error) {
        if (stopped) return;
        setReadError(`Following stopped answering: ${reason(error)}`);
      }
      if (!stopped) timer = setTimeout(poll, TAIL_POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [tail, run]);

  const expand = useCallback((id: string) => setExpanded((current) => new Set(current).add(id)), []);

  return {
    records,
    scan,
    busy,
    readError,
    expanded,
    following: tail !== null,
    progress,
    stopping,
    search,
    stop,
    scanFurther,
    follow,
    stopFollowing,
    expand,
  };
}
