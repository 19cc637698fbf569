"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { filterAndSortTopics, type TopicSort } from "@/lib/topic-order";
import { useTRPC } from "@/lib/trpc";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { PolicyBadge } from "./policy-badge";

// The API's largest page; tenants with more topics see a sentence saying the list is cut.
const LIST_LIMIT = 1000;

export function TopicList() {
  const trpc = useTRPC();
  const topics = useQuery(trpc.topics.list.queryOptions({ limit: LIST_LIMIT }));
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<TopicSort>("name");

  if (topics.isPending) return <StatusNotice>Loading your topics…</StatusNotice>;
  if (topics.isError) return <ErrorNotice>We could not load your topics: {topics.error.message}</ErrorNotice>;
  if (topics.data.topics.length === 0) {
    return <StatusNotice>This organization has no topics yet. Create the first one below.</StatusNotice>;
  }
  const shown = filterAndSortTopics(topics.data.topics, query, sort);
  return (
    <div className="flex flex-col gap-3">
      <search className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <TextField
          label="Search topics"
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <SelectField
          label="Sort by"
          value={sort}
          onChange={(event) => setSort(event.target.value as TopicSort)}
        >
          <option value="name">Name</option>
          <option value="partitions">Most partitions</option>
          <option value="newest">Newest</option>
        </SelectField>
      </search>
      {topics.data.nextCursor ? (
        <p className="text-sm text-muted">Showing the first {LIST_LIMIT} topics.</p>
      ) : null}
      {shown.length === 0 ? (
        <StatusNotice>No topic name contains “{query.trim()}”.</StatusNotice>
      ) : (
        <TopicTable topics={shown} />
      )}
    </div>
  );
}

function TopicTable({
  topics,
}: {
  topics: readonly { id: string; name: string; cleanupPolicy: string; partitions: number }[];
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-line bg-surface">
      <table aria-label="Topics" className="w-full text-left text-sm">
        <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">
              Name
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              Policy
            </th>
            <th scope="col" className="px-4 py-2 text-right font-medium">
              Partitions
            </th>
          </tr>
        </thead>
        <tbody>
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
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
