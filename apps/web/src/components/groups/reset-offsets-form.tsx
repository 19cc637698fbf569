"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { DataRow, DataTable } from "../ui/data-table";
import { SelectField, TextField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice, StatusNotice } from "../ui/notice";

type Target = "earliest" | "latest" | "timestamp" | "offset";

interface Preview {
  offsets: { partition: number; offset: number; previousOffset: number | null; lagAfter: number }[];
}

/** A reset asked for from a partition's row: that topic and partition, chosen in the form. */
export interface ResetPreset {
  id: number;
  topic: string;
  partition: number;
}

/**
 * Moves a group's position on one of its topics, every partition or one. "Preview" asks for a dry
 * run (nothing committed) and shows each partition's position now and after, and the lag it would
 * leave; "Apply" commits exactly what was previewed.
 */
export function ResetOffsetsForm({
  group,
  topics,
  preset,
}: {
  group: string;
  topics: readonly { topic: string; partitions: readonly number[] }[];
  preset?: ResetPreset | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [topic, setTopic] = useState(topics[0]?.topic ?? "");
  const [partition, setPartition] = useState<"all" | number>("all");
  const [to, setTo] = useState<Target>("earliest");
  const [time, setTime] = useState("");
  const [offset, setOffset] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [applied, setApplied] = useState<string | null>(null);
  const reset = useMutation(trpc.consumerGroups.reset.mutationOptions());
  useEffect(() => {
    if (!preset) return;
    setTopic(preset.topic);
    setPartition(preset.partition);
    setPreview(null);
    setApplied(null);
  }, [preset]);
  const partitions = topics.find((t) => t.topic === topic)?.partitions ?? [];

  const input = () => {
    const base = { group, topic, ...(partition === "all" ? {} : { partitions: [partition] }) };
    if (to === "timestamp") {
      const at = new Date(time).getTime();
      if (!Number.isFinite(at)) return { error: "Enter the date and time to move the group to." };
      return { input: { ...base, to, timestamp: Math.max(0, at) } };
    }
    if (to === "offset") {
      if (!/^\d+$/.test(offset.trim()))
        return { error: "Enter the offset to move to: a whole number, 0 or more." };
      return { input: { ...base, to, offset: Number(offset.trim()) } };
    }
    return { input: { ...base, to } };
  };

  const run = async (dryRun: boolean) => {
    const built = input();
    setApplied(null);
    if ("error" in built) {
      setError(built.error ?? null);
      setPreview(null);
      return;
    }
    setError(null);
    try {
      const answer = await reset.mutateAsync({ ...built.input, dryRun });
      if (dryRun) {
        setPreview(answer);
        return;
      }
      setPreview(null);
      setApplied(
        `Moved ${group} on ${topic}: ${answer.offsets.map((o) => `partition ${o.partition} to offset ${o.offset}`).join(", ")}.`,
      );
      await queryClient.invalidateQueries({ queryKey: trpc.consumerGroups.list.queryKey() });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  const onSubmit = () => void run(true);
  // A change to what the reset does voids the preview: "Apply" commits only what was previewed.
  const edit = <T,>(setter: (value: T) => void, value: T) => {
    setter(value);
    setPreview(null);
  };

  return (
    <Form aria-label={`Reset offsets of ${group}`} onSubmit={onSubmit} className="flex flex-col gap-3">
      <div className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField
          label="Topic"
          value={topic}
          onChange={(e) => {
            edit(setTopic, e.target.value);
            setPartition("all");
          }}
        >
          {topics.map((t) => (
            <option key={t.topic} value={t.topic}>
              {t.topic}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Partitions"
          value={String(partition)}
          onChange={(e) => edit(setPartition, e.target.value === "all" ? "all" : Number(e.target.value))}
        >
          <option value="all">All partitions</option>
          {partitions.map((p) => (
            <option key={p} value={String(p)}>
              Partition {p}
            </option>
          ))}
        </SelectField>
        <SelectField label="Move to" value={to} onChange={(e) => edit(setTo, e.target.value as Target)}>
          <option value="earliest">Earliest</option>
          <option value="latest">Latest</option>
          <option value="timestamp">A time</option>
          <option value="offset">An offset</option>
        </SelectField>
        {to === "timestamp" ? (
          <div className="min-w-[15rem]">
            <TextField
              label="Time (local)"
              type="datetime-local"
              step={1}
              value={time}
              onChange={(e) => edit(setTime, e.target.value)}
            />
          </div>
        ) : null}
        {to === "offset" ? (
          <TextField
            label="Offset"
            inputMode="numeric"
            value={offset}
            onChange={(e) => edit(setOffset, e.target.value)}
          />
        ) : null}
      </div>
      <div className="flex flex-wrap gap-3">
        <Button type="submit" variant="secondary" disabled={reset.isPending}>
          Preview reset
        </Button>
        {preview ? (
          <Button type="button" disabled={reset.isPending} onClick={() => void run(false)}>
            Apply reset
          </Button>
        ) : null}
      </div>
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
      {applied ? <StatusNotice>{applied}</StatusNotice> : null}
      {preview ? (
        <DataTable
          label={`Reset preview of ${group}`}
          titles={["Partition", "Now at", "Moves to", "Lag after"]}
        >
          {preview.offsets.map((o) => (
            <DataRow key={o.partition} head={o.partition}>
              <td className="py-2 pr-4 tabular-nums">{o.previousOffset ?? "no position"}</td>
              <td className="py-2 pr-4 tabular-nums">{o.offset}</td>
              <td className="py-2 tabular-nums">
                {o.lagAfter.toLocaleString("en")} record{o.lagAfter === 1 ? "" : "s"}
              </td>
            </DataRow>
          ))}
        </DataTable>
      ) : null}
    </Form>
  );
}
