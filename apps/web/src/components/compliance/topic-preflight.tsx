import { DataRow, DataTable } from "../ui/data-table";
import { roughDuration } from "./erasure-stages";

/** Beyond this the worst case comes from a "never" config (Kafka's Long.MAX max lag): say so. */
const UNBOUNDED_MS = 10 * 365 * 86_400_000;

function worstCase(ms: number): string {
  return ms >= UNBOUNDED_MS ? "Never guaranteed" : roughDuration(ms);
}

interface PreflightEntry {
  topic: string;
  preflight: {
    deadlineMs: number;
    worstCasePurgeMs: number;
    meetsDeadline: boolean;
    fix: Record<string, string> | null;
    explanation: string;
    delays?: { step: string; ms: number }[] | undefined;
  };
  pendingTombstones?: number;
}

/**
 * Each topic's worst case from filing to a purge proven on every tier (min.compaction.lag.ms and
 * every wait of the proof, listed), against the deadline, and for those that miss it the config
 * change that fixes it.
 */
export function TopicPreflight({
  entries,
  label = "Topic deadline preflight",
}: {
  entries: readonly PreflightEntry[];
  label?: string;
}) {
  if (entries.length === 0) return <p className="text-sm text-muted">No compacted topics are in scope.</p>;
  return (
    <DataTable
      label={label}
      titles={["Topic", "Worst-case purge", "Deadline", "Verdict", "Config change that fixes it"]}
    >
      {entries.map(({ topic, preflight }) => (
        <DataRow key={topic} top headClassName="font-mono font-medium" head={topic}>
          <td className="py-2 pr-4">
            <span className="whitespace-nowrap">{worstCase(preflight.worstCasePurgeMs)}</span>
            {preflight.delays ? (
              <details className="mt-1 text-xs text-muted">
                <summary>What it adds up</summary>
                <ul>
                  {preflight.delays.map((d) => (
                    <li key={d.step}>
                      {d.step}: {roughDuration(d.ms)}
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
          </td>
          <td className="py-2 pr-4 whitespace-nowrap">{roughDuration(preflight.deadlineMs)}</td>
          <td className="py-2 pr-4" title={preflight.explanation}>
            {preflight.meetsDeadline ? (
              "Meets the deadline"
            ) : (
              <strong className="text-danger">Cannot meet the deadline</strong>
            )}
          </td>
          <td className="py-2 font-mono text-xs">
            {preflight.fix
              ? Object.entries(preflight.fix).map(([name, value]) => (
                  <span key={name} className="block">
                    {name}={value}
                    {name.endsWith(".ms") ? ` (${roughDuration(Number(value))})` : ""}
                  </span>
                ))
              : "None needed"}
          </td>
        </DataRow>
      ))}
    </DataTable>
  );
}
