"use client";

import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { RegisterSchemaForm } from "./register-schema-form";
import { SubjectDetail } from "./subject-detail";

/** The registry's subjects; choosing one shows its versions. Writes are offered with schemas:write. */
export function SchemasPage() {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const params = useSearchParams();
  const [chosen, setChosen] = useState<string | null>(params.get("subject"));
  const subjects = useQuery({ ...trpc.schemas.subjects.queryOptions(), enabled: access.can("schemas:read") });
  if (!access.ready) return <StatusNotice>Checking what your role may see…</StatusNotice>;
  if (!access.can("schemas:read")) {
    return (
      <StatusNotice>Your role ({access.role ?? "this key"}) cannot read the schema registry.</StatusNotice>
    );
  }
  const list = subjects.data?.subjects ?? [];
  const selected = chosen ?? list[0]?.subject ?? null;
  return (
    <div className="flex flex-col gap-6">
      <Card
        title="Subjects"
        description={`Global compatibility: ${subjects.data?.globalCompatibility ?? "…"}. A topic's values use the subject <topic>-value, its keys <topic>-key (Confluent's TopicNameStrategy).`}
      >
        {subjects.isError ? <ErrorNotice>{subjects.error.message}</ErrorNotice> : null}
        {subjects.isSuccess && list.length === 0 ? (
          <StatusNotice>No schemas are registered yet.</StatusNotice>
        ) : null}
        {list.length > 0 ? (
          <table aria-label="Subjects" className="w-full text-left text-sm">
            <thead className="text-xs text-muted">
              <tr>
                <th className="py-1 pr-4 font-medium">Subject</th>
                <th className="py-1 pr-4 font-medium">Type</th>
                <th className="py-1 pr-4 font-medium">Latest</th>
                <th className="py-1 pr-4 font-medium">Versions</th>
                <th className="py-1 font-medium">Compatibility</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.subject} className="border-t border-line">
                  <th scope="row" className="py-2 pr-4 font-mono font-normal break-all">
                    <button
                      type="button"
                      onClick={() => setChosen(s.subject)}
                      aria-current={s.subject === selected ? "true" : undefined}
                      className={`underline-offset-2 hover:underline ${s.subject === selected ? "text-accent" : ""}`}
                    >
                      {s.subject}
                    </button>
                  </th>
                  <td className="py-2 pr-4">
                    <Badge>{s.latest.schemaType}</Badge>
                  </td>
                  <td className="py-2 pr-4 tabular-nums">
                    v{s.latest.version} · id {s.latest.id}
                  </td>
                  <td className="py-2 pr-4 tabular-nums">{s.versions}</td>
                  <td className="py-2">
                    {s.compatibility}
                    {s.subjectCompatibility ? "" : " (global)"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Card>
      {selected && list.some((s) => s.subject === selected) ? (
        <SubjectDetail
          subject={selected}
          canWrite={access.can("schemas:write")}
          onGone={() => setChosen(null)}
        />
      ) : null}
      {access.can("schemas:write") ? (
        <RegisterSchemaForm subject={selected} onRegistered={setChosen} />
      ) : null}
    </div>
  );
}
