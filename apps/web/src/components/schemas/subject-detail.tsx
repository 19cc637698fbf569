"use client";

import type { RouterInputs } from "@lastword/api";
import { COMPATIBILITY_LEVELS } from "@lastword/schema-registry/compatibility-level";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { schemaLines, sideBySide } from "@/lib/schema-diff";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { ConfirmButton } from "../ui/confirm-button";
import { SelectField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";

type Level = NonNullable<RouterInputs["schemas"]["setCompatibility"]["level"]>;
const LEVELS: readonly Level[] = COMPATIBILITY_LEVELS;

const ROW_TONES = {
  same: "",
  removed: "bg-danger/10",
  added: "bg-accent/10",
  changed: "bg-amber-500/10",
} as const;

/** A subject's versions: two side by side with their diff, its compatibility level, and deletes. */
export function SubjectDetail(props: { subject: string; canWrite: boolean; onGone: () => void }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.schemas.subject.queryOptions({ subject: props.subject }));
  const refresh = {
    refresh: [trpc.schemas.subjects.queryKey(), trpc.schemas.subject.queryKey({ subject: props.subject })],
  };
  const setLevel = useRefreshingMutation(trpc.schemas.setCompatibility.mutationOptions(), refresh);
  const remove = useRefreshingMutation(trpc.schemas.delete.mutationOptions(), {
    refresh: [trpc.schemas.subjects.queryKey()],
  });
  const [pair, setPair] = useState<{ left: number | null; right: number | null }>({
    left: null,
    right: null,
  });
  if (detail.isError) return <ErrorNotice>{detail.error.message}</ErrorNotice>;
  if (!detail.data) return <StatusNotice>Loading {props.subject}…</StatusNotice>;
  const versions = detail.data.versions;
  const latest = versions.at(-1)!;
  const right = versions.find((v) => v.version === pair.right) ?? latest;
  const left = versions.find((v) => v.version === pair.left) ?? versions.at(-2) ?? latest;
  const rows = sideBySide(
    schemaLines(left.schema, left.schemaType),
    schemaLines(right.schema, right.schemaType),
  );
  const options = versions.map((v) => ({ value: String(v.version), label: `v${v.version} (id ${v.id})` }));
  return (
    <Card
      title={`Subject ${props.subject}`}
      description={`${versions.length} version${versions.length === 1 ? "" : "s"}, ${latest.schemaType}. New versions must be ${detail.data.compatibility} compatible.`}
    >
      <div className="flex flex-col gap-4">
        <div className="grid items-end gap-4 sm:grid-cols-3">
          <SelectField
            label="Left version"
            options={options}
            value={String(left.version)}
            onChange={(e) => setPair((p) => ({ ...p, left: Number(e.target.value) }))}
          />
          <SelectField
            label="Right version"
            options={options}
            value={String(right.version)}
            onChange={(e) => setPair((p) => ({ ...p, right: Number(e.target.value) }))}
          />
          <SelectField
            label="Compatibility"
            disabled={!props.canWrite || setLevel.isPending}
            value={detail.data.subjectCompatibility ?? "global"}
            onChange={(e) =>
              setLevel.mutate({
                subject: props.subject,
                level: e.target.value === "global" ? null : (e.target.value as Level),
              })
            }
          >
            <option value="global">Global ({detail.data.compatibility})</option>
            {LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </SelectField>
        </div>
        {setLevel.isError ? <ErrorNotice>{setLevel.error.message}</ErrorNotice> : null}
        <div className="overflow-x-auto rounded-md border border-line">
          <table
            aria-label={`Diff of v${left.version} and v${right.version}`}
            className="w-full table-fixed font-mono text-xs"
          >
            <thead className="text-muted">
              <tr>
                <th className="w-1/2 px-2 py-1 text-left font-medium">v{left.version}</th>
                <th className="w-1/2 px-2 py-1 text-left font-medium">v{right.version}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a diff's rows are positional and never reorder.
                <tr key={i} data-change={row.change} className={ROW_TONES[row.change]}>
                  <td className="px-2 align-top break-all whitespace-pre-wrap">{row.left ?? ""}</td>
                  <td className="px-2 align-top break-all whitespace-pre-wrap">{row.right ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {props.canWrite ? (
          <div className="flex flex-wrap items-center justify-end gap-3">
            <ConfirmButton
              verb={`Delete v${right.version}`}
              gerund="Deleting"
              target={`${props.subject} v${right.version}`}
              action={remove}
              onConfirm={() =>
                remove.mutate({ subject: props.subject, version: right.version, permanent: false })
              }
            />
            <ConfirmButton
              verb="Delete subject"
              gerund="Deleting"
              target={props.subject}
              action={remove}
              onConfirm={() =>
                remove.mutate(
                  { subject: props.subject, permanent: false },
                  { onSuccess: () => props.onGone() },
                )
              }
            />
          </div>
        ) : null}
      </div>
    </Card>
  );
}
