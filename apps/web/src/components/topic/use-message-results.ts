"use client";

import type { RouterOutputs } from "@lastword/api";
import { useCallback, useEffect, useState } from "react";
import type { BrowsedRecord } from "@/lib/record-export";
import type { SearchInput } from "./message-search-input";

type SearchAnswer = RouterOutputs["records"]["search"];
type StopReason = SearchAnswer["stoppedBy"];
interface Position {
  partition: number;
  offset: number;
}
export interface Scan {
  /** The filters and bounds of the search shown, reused to scan further or follow. */
  input: SearchInput;
  positions: Position[];
  scanned: number;
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

  const search = async (input: SearchInput) => {
    setReadError(null);
    setTail(null);
    setScan(null);
    setRecords([]);
    setBusy(true);
    try {
      const answer = await run(input);
      setRecords(answer.records);
      setExpanded(new Set());
      setScan({
        input,
        ...answer,
        logStarts: new Map(answer.positions.map((p) => [p.partition, p.logStartOffset])),
      });
    } catch (error) {
      setReadError(`We could not read ${topic}: ${reason(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const scanFurther = async () => {
    if (!scan) return;
    setBusy(true);
    setReadError(null);
    try {
      const answer = await run({ ...scan.input, start: { from: "offsets", offsets: scan.positions } });
      setRecords((current) => [...current, ...answer.records]);
      setScan({ ...scan, ...answer, scanned: scan.scanned + answer.scanned });
    } catch (error) {
      setReadError(`We could not read further: ${reason(error)}`);
    } finally {
      setBusy(false);
    }
  };

  /** Follows new records matching `base`, from where the search shown stopped (or the latest). */
  const follow = (base: SearchInput) => setTail({ base, positions: scan?.positions ?? null });
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
        setScan({ input: tail.base, positions: answer.positions, scanned, stoppedBy: answer.stoppedBy });
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
    search,
    scanFurther,
    follow,
    stopFollowing,
    expand,
  };
}
