"use client";

import type { RouterOutputs } from "@lastword/api";
import * as Tooltip from "@radix-ui/react-tooltip";
import { useQuery } from "@tanstack/react-query";
import { shortDateTime } from "@/lib/date-time-formats";
import { partitionNumbers } from "@/lib/partition-numbers";
import { formatBytes } from "@/lib/partition-stats";
import { segmentWidths } from "@/lib/segment-widths";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { FLOATING_PANEL, FLOATING_PLACEMENT } from "../ui/floating-panel";
import { PartitionStability } from "./partition-stability";

type Segment = RouterOutputs["topics"]["segments"]["segments"][number];
type SegmentState = Segment["state"];
type SegmentTier = Segment["tier"];

/** Fast enough to watch a cleaner pass land; each bar is one small worker call. */
const SEGMENTS_REFRESH_MS = 3_000;
/** A 60-byte active segment beside a 1 GiB one must stay visible and big enough to point at. */
const MIN_BLOCK_PERCENT = 2;
/** Hovering along the bar shows each segment's facts without a wait; a pass by on the way elsewhere does not. */
const TOOLTIP_DELAY_MS = 150;

const STATE_STYLE: Record<SegmentState, string> = {
  clean: "bg-emerald-500 dark:bg-emerald-400",
  dirty: "bg-amber-500 dark:bg-amber-400",
  active: "bg-indigo-500 dark:bg-indigo-400",
};
const STATE_MEANING: Record<SegmentState, string> = {
  clean: "Clean: compacted, one value per key",
  dirty: "Dirty: written since the last pass, may hold superseded values",
  active: "Active: being written, never compacted",
};
/** Drawn over the state's colour: a stripe under an uploaded block, hatching over an evicted one. */
const TIER_STYLE: Record<SegmentTier, string> = {
  local: "",
  uploaded: "shadow-[inset_0_-4px_0_0_var(--color-accent)]",
  evicted:
    "opacity-60 bg-[repeating-linear-gradient(135deg,transparent_0_4px,rgb(255_255_255/0.55)_4px_7px)]",
};
const TIER_MEANING: Record<SegmentTier, string> = {
  local: "Local: on the worker's disk only",
  uploaded: "Uploaded: on disk and in object storage",
  evicted: "Evicted: in object storage only",
};

/**
 * Per partition, its log as the worker holds it now: segments as blocks proportional to bytes,
 * and under them its last stable offset and any open transactions holding it.
 */
export function SegmentBars({ topic, partitions }: { topic: string; partitions: number }) {
  return (
    <Card
      title="Segments"
      description="Each block is one segment file, sized by its bytes. The cleaner turns dirty segments clean; the active one is left alone. With an object store, closed segments are uploaded, and past the topic's local retention evicted from disk."
    >
      <ul aria-label="Segment states" className="mb-2 flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted">
        {(Object.keys(STATE_STYLE) as SegmentState[]).map((state) => (
          <li key={state} className="flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block size-3 rounded-sm ${STATE_STYLE[state]}`} />
            {STATE_MEANING[state]}
          </li>
        ))}
      </ul>
      <ul aria-label="Segment tiers" className="mb-4 flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted">
        {(Object.keys(TIER_STYLE) as SegmentTier[]).map((tier) => (
          <li key={tier} className="flex items-center gap-1.5">
            <span
              aria-hidden="true"
              className={`inline-block size-3 rounded-sm bg-slate-400 ${TIER_STYLE[tier]}`}
            />
            {TIER_MEANING[tier]}
          </li>
        ))}
      </ul>
      <div className="flex flex-col gap-3">
        {partitionNumbers(partitions).map((partition) => (
          <PartitionSegmentBar key={partition} topic={topic} partition={partition} />
        ))}
      </div>
    </Card>
  );
}

function PartitionSegmentBar({ topic, partition }: { topic: string; partition: number }) {
  const trpc = useTRPC();
  const layout = useQuery({
    ...trpc.topics.segments.queryOptions({ topic, partition }),
    refetchInterval: SEGMENTS_REFRESH_MS,
  });
  const segments = layout.data?.segments ?? [];
  const totalBytes = segments.reduce((sum, s) => sum + s.sizeBytes, 0);
  // What a cleaner pass measures (Cleaner runs' "closed segments before → after"): the active
  // segment is never cleaned, so its bytes are told apart.
  const activeBytes = segments.find((s) => s.state === "active")?.sizeBytes ?? 0;
  return (
    <div className="flex flex-col gap-1">
      <div className="grid grid-cols-[6rem_1fr_6rem] items-center gap-3">
        <span className="text-sm font-medium">Partition {partition}</span>
        {/* Fixed height whatever the state, so refetches and loading never move the page. */}
        <div className="relative h-8">
          {layout.data ? (
            <SegmentBlocks partition={partition} segments={segments} />
          ) : (
            <p
              role={layout.isError ? "alert" : "status"}
              className="flex h-8 items-center rounded border border-dashed border-line px-3 text-xs text-muted"
            >
              {layout.isError
                ? `We could not load the segments: ${layout.error.message}`
                : "Loading segments…"}
            </p>
          )}
        </div>
        <span
          className="text-right text-xs tabular-nums text-muted"
          title={
            layout.data
              ? `${formatBytes(totalBytes - activeBytes)} in closed segments, ${formatBytes(activeBytes)} in the active one`
              : undefined
          }
        >
          {layout.data ? formatBytes(totalBytes) : ""}
        </span>
      </div>
      {layout.data ? <PartitionStability partition={partition} layout={layout.data} /> : null}
    </div>
  );
}

function SegmentBlocks({ partition, segments }: { partition: number; segments: readonly Segment[] }) {
  // An empty log (its one active segment holds 0 bytes) is an empty bar with a sliver to focus,
  // not a full one: proportional widths have no bytes to share out, and equal shares would read as full.
  const empty = segments.every((s) => s.sizeBytes === 0);
  const widths = empty
    ? segments.map(() => MIN_BLOCK_PERCENT)
    : segmentWidths(
        segments.map((s) => s.sizeBytes),
        MIN_BLOCK_PERCENT,
      );
  return (
    // Radix Tooltip: opens on hover and keyboard focus, closes on Escape, names itself in the
    // block's aria-describedby while open, and floats in a portal, so the bar never changes height.
    // The facts hold nothing to click: leaving the block closes them (no hoverable content).
    <Tooltip.Provider delayDuration={TOOLTIP_DELAY_MS} disableHoverableContent>
      <ul
        aria-label={`Partition ${partition} segments`}
        className="flex h-8 w-full rounded-sm border border-line bg-canvas"
      >
        {segments.map((segment, i) => (
          <li
            key={segment.baseOffset}
            style={{ width: `${widths[i]}%` }}
            className="h-full shrink-0 border-r border-surface last:border-r-0"
          >
            <Tooltip.Root>
              <Tooltip.Trigger asChild>
                <button
                  type="button"
                  data-state={segment.state}
                  data-tier={segment.tier}
                  aria-label={segmentLabel(segment)}
                  className={`block size-full focus-visible:relative focus-visible:z-10 ${STATE_STYLE[segment.state]} ${TIER_STYLE[segment.tier]}`}
                />
              </Tooltip.Trigger>
              <Tooltip.Portal>
                <Tooltip.Content
                  side="bottom"
                  {...FLOATING_PLACEMENT}
                  className={`${FLOATING_PANEL} w-72 p-3 text-xs`}
                >
                  <SegmentFacts segment={segment} />
                </Tooltip.Content>
              </Tooltip.Portal>
            </Tooltip.Root>
          </li>
        ))}
      </ul>
    </Tooltip.Provider>
  );
}

function SegmentFacts({ segment }: { segment: Segment }) {
  const rows: [string, string][] = [
    ["Offsets", offsetRange(segment)],
    ["Size", formatBytes(segment.sizeBytes)],
    ["Records", String(segment.records)],
    ["Tombstones", String(segment.tombstones)],
    ["Time", timeRange(segment)],
    ["Tier", TIER_MEANING[segment.tier].split(":")[0] ?? segment.tier],
    ...(segment.object
      ? ([
          ["Object", segment.object.key],
          ["Object size", formatBytes(segment.object.sizeBytes)],
        ] as [string, string][])
      : []),
  ];
  return (
    <>
      <p className="mb-1 font-medium">{STATE_MEANING[segment.state]}</p>
      <p className="mb-1 text-muted">{TIER_MEANING[segment.tier]}</p>
      <dl className="grid grid-cols-[4.5rem_1fr] gap-x-2 gap-y-0.5">
        {rows.map(([term, value]) => (
          <div key={term} className="contents">
            <dt className="text-muted">{term}</dt>
            <dd className="tabular-nums break-all">{value}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

function offsetRange(segment: Segment): string {
  if (segment.records === 0) return `none yet (starts at ${segment.baseOffset})`;
  return `${segment.baseOffset}–${segment.lastOffset}`;
}

function timeRange(segment: Segment): string {
  if (segment.firstTimestamp === null || segment.maxTimestamp === null) return "no records";
  const first = shortDateTime.format(new Date(segment.firstTimestamp));
  const last = shortDateTime.format(new Date(segment.maxTimestamp));
  return first === last ? first : `${first} – ${last}`;
}

function segmentLabel(segment: Segment): string {
  // Local is every segment's tier without an object store: only the others are worth saying.
  const tier = segment.tier === "local" ? "" : `, ${segment.tier}`;
  return `${segment.state} segment, offsets ${offsetRange(segment)}, ${formatBytes(segment.sizeBytes)}, ${segment.records} records${tier}`;
}
