"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { PolicyBadge } from "./policy-badge";

export function TopicList() {
  const trpc = useTRPC();
  const topics = useQuery(trpc.topics.list.queryOptions({}));

  if (topics.isPending) return <StatusNotice>Loading your topics…</StatusNotice>;
  if (topics.isError) return <ErrorNotice>We could not load your topics: {topics.error.message}</ErrorNotice>;
  if (topics.data.topics.length === 0) {
    return <StatusNotice>This organization has no topics yet. Create the first one below.</StatusNotice>;
  }
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
          {topics.data.topics.map((topic) => (
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
