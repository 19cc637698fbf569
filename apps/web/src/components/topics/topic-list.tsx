"use client";

import type { RouterOutputs } from "@lastword/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useInput } from "@/lib/form-state";
import { formatBytes } from "@/lib/partition-stats";
import { filterAndSortTopics, type TopicSort } from "@/lib/topic-order";
import { useTRPC } from "@/lib/trpc";
import { DirtyRatioMeter } from "../topic/dirty-ratio-meter";
import { Badge } from "../ui/badge";
import { DataTable } from "../ui/data-table";
import { Disclosure } from "../ui/disclosure";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice, RefreshFailedNotice, StatusNotice } from "../ui/notice";
import { PolicyBadge } from "./policy-badge";

// The API's largest page; tenants with more topics see a sentence saying the list is cut.
const LIST_LIMIT = 1000;
/** Sizes and ratios come from worker reports (every few seconds); refresh the list at a calm pace. */
const LIST_REFRESH_MS = 10_000;
const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "short" });

type TopicRow = RouterOutputs["topics"]["list"]["topics"][number];

export function TopicList() {
  const trpc = useTRPC();
  const topics = useQuery({
    ...trpc.topics.list.queryOptions({ limit: LIST_LIMIT }),
    refetchInterval: LIST_REFRESH_MS,
  });
  const query = useInput("");
  const sort = useInput<TopicSort>("name");

  if (topics.isPending) return <StatusNotice>Loading your topics…</StatusNotice>;
  if (topics.isError && topics.data === undefined)
    return <ErrorNotice>We could not load your topics: {topics.error.message}</ErrorNotice>;
  if (topics.data.topics.length === 0) {
    return <StatusNotice>This organization has no topics yet. Create the first one below.</StatusNotice>;
  }
  const shown = filterAndSortTopics(topics.data.topics, query.value, sort.value);
  return (
    <div className="flex flex-col gap-3">
      {topics.isError ? <RefreshFailedNotice error={topics.error} /> : null}
      <search className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <TextField label="Search topics" type="search" {...query.bind} />
        <SelectField label="Sort by" {...sort.bind}>
          <option value="name">Name</option>
          <option value="partitions">Most partitions</option>
          <option value="newest">Newest</option>
          <option value="size">Largest</option>
          <option value="dirty">Dirtiest</option>
          <option value="lastClean">Longest since a clean</option>
        </SelectField>
      </search>
      {topics.data.nextCursor ? (
        <p className="text-sm text-muted">Showing the first {LIST_LIMIT} topics.</p>
      ) : null}
      {shown.length === 0 ? (
        <StatusNotice>No topic name contains “{query.value.trim()}”.</StatusNotice>
      ) : (
        <TopicTable topics={shown} />
      )}
    </div>
  );
}

const COLUMNS = [
  { title: "Name", numeric: false },
  { title: "Policy", numeric: false },
  { title: "Partitions", numeric: true },
  { title: "Size", numeric: true },
  { title: "Live / dirty", numeric: false },
  { title: "Dirty ratio", numeric: false },
  { title: "Last clean", numeric: false },
  { title: "Warnings", numeric: false },
] as const;

function TopicTable({ topics }: { topics: readonly TopicRow[] }) {
  return (
    <DataTable
      label="Topics"
      titles={COLUMNS.map((column) => column.title)}
      head={
        <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
          <tr>
            {COLUMNS.map((column) => (
              <th
                key={column.title}
                scope="col"
                className={`px-4 py-2 font-medium whitespace-nowrap ${column.numeric ? "text-right" : ""}`}
              >
                {column.title}
              </th>
            ))}
          </tr>
        </thead>
      }
      frameClassName="overflow-x-auto rounded-lg border border-line bg-surface"
    >
      {topics.map((topic) => (
        <tr key={topic.id} className="border-b border-line last:border-0">
          <th scope="row" className="px-4 py-3 font-mono font-medium">
            <Link
              href={`/topics/${encodeURIComponent(topic.name)}`}
              className="text-accent underline-offset-2 hover:underline"
            >
              {topic.name}
            </Link>
          </th>
          <td className="px-4 py-3">
            <PolicyBadge policy={topic.cleanupPolicy} />
          </td>
          <td className="px-4 py-3 text-right tabular-nums">{topic.partitions}</td>
          <UsageCells topic={topic} />
          <td className="px-4 py-3">
            <WarningsBadge topic={topic.name} warnings={topic.warnings} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Size, live vs dirty bytes, ratio and last clean from the partitions' latest worker reports. */
function UsageCells({ topic }: { topic: TopicRow }) {
  const { usage } = topic;
  if (usage.reportedPartitions === 0) {
    return (
      <td colSpan={4} className="px-4 py-3 text-xs text-muted">
        No worker has reported on this topic yet.
      </td>
    );
  }
  const compacted = topic.cleanupPolicy.includes("compact");
  const liveBytes = Math.max(0, usage.sizeBytes - usage.dirtyBytes);
  const livePercent = usage.sizeBytes > 0 ? (100 * liveBytes) / usage.sizeBytes : 100;
  return (
    <>
      <td className="px-4 py-3 text-right tabular-nums whitespace-nowrap">{formatBytes(usage.sizeBytes)}</td>
      <td className="px-4 py-3">
        {compacted ? (
          <div className="flex min-w-40 flex-col gap-1">
            <div aria-hidden="true" className="flex h-2 w-full overflow-hidden rounded-full bg-amber-500/70">
              <div className="h-full bg-emerald-500" style={{ width: `${livePercent}%` }} />
            </div>
            <span className="text-xs tabular-nums text-muted whitespace-nowrap">
              {formatBytes(liveBytes)} live · {formatBytes(usage.dirtyBytes)} dirty
            </span>
          </div>
        ) : (
          <span className="text-xs text-muted">All live (no cleaner)</span>
        )}
      </td>
      <td className="px-4 py-3">
        {compacted ? (
          <DirtyRatioMeter ratio={usage.dirtyRatio} label={`${topic.name} dirty ratio`} />
        ) : (
          <span className="text-xs text-muted">—</span>
        )}
      </td>
      <td className="px-4 py-3 text-xs whitespace-nowrap text-muted">
        {usage.lastCleanAt ? timeFormat.format(new Date(usage.lastCleanAt)) : compacted ? "Never" : "—"}
      </td>
    </>
  );
}

function WarningsBadge({ topic, warnings }: { topic: string; warnings: TopicRow["warnings"] }) {
  if (warnings.length === 0) return <span className="text-xs text-muted">None</span>;
  return (
    <Disclosure
      summary={
        <Badge tone="warning">
          <span>{warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`}</span>
          <span className="sr-only"> on {topic}</span>
        </Badge>
      }
    >
      <ul className="list-disc pl-4">
        {warnings.map((w) => (
          <li key={w.code}>{w.message}</li>
        ))}
      </ul>
    </Disclosure>
  );
}
