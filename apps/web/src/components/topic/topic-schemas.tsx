"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { StatusNotice } from "../ui/notice";

/** The topic's subjects by Confluent's TopicNameStrategy (`<topic>-key`, `<topic>-value`), linked to the Schemas page. */
export function TopicSchemas({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const subjects = useQuery(trpc.schemas.forTopic.queryOptions({ topic }));
  return (
    <Card
      title="Schemas"
      description={`Subjects named for this topic (${topic}-key, ${topic}-value), as Confluent's serializers name them by default.`}
    >
      {subjects.data && subjects.data.length === 0 ? (
        <StatusNotice>No schema is registered for this topic's keys or values.</StatusNotice>
      ) : null}
      <ul className="flex flex-col gap-2 text-sm">
        {(subjects.data ?? []).map((s) => (
          <li key={s.subject} className="flex flex-wrap items-center gap-2">
            <span className="w-12 text-muted">{s.role}</span>
            <Link
              href={`/schemas?subject=${encodeURIComponent(s.subject)}`}
              className="font-mono underline-offset-2 hover:underline"
            >
              {s.subject}
            </Link>
            <Badge>{s.latest.schemaType}</Badge>
            <span className="text-muted tabular-nums">
              v{s.latest.version} of {s.versions} · id {s.latest.id}
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
