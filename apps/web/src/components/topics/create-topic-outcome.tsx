import { configValueText } from "@/lib/config-units";
import { erasureCheckOf, resultingConfigs } from "@/lib/topic-config-form";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { ColumnHeads } from "../ui/column-heads";

interface Outcome {
  topic: { name: string; partitions: number; cleanupPolicy: string; configs: Record<string, string> };
  validateOnly: boolean;
  warnings: readonly { code: string; message: string }[];
}

/**
 * What a create (or its validate-only preview) answered: the resulting configs with their
 * source, the API's guardrail warnings and, for compacted topics, the erasure deadline check.
 */
export function CreateTopicOutcome({
  outcome,
  erasureDeadlineDays,
  onApplyFix,
}: {
  outcome: Outcome;
  erasureDeadlineDays: number | null;
  /** Puts the erasure check's suggested configs into the form (offered on a preview only). */
  onApplyFix: (fix: Record<string, string>) => void;
}) {
  const { topic } = outcome;
  const configs = Object.entries(topic.configs)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  const erasure = erasureDeadlineDays === null ? null : erasureCheckOf(topic.configs, erasureDeadlineDays);
  const notes = [
    ...outcome.warnings.map((warning) => warning.message),
    ...(erasure ? [erasure.message] : []),
  ];
  const fix = outcome.validateOnly ? (erasure?.fix ?? null) : null;
  return (
    <div role="status" className="flex flex-col gap-2 text-sm text-muted">
      <p>
        {outcome.validateOnly
          ? `${topic.name} is valid: it would get ${topic.partitions} ${plural(topic.partitions)} and ${configs || "default configs"}. Nothing was created.`
          : `Created topic ${topic.name}.`}
      </p>
      {notes.length > 0 ? (
        <ul aria-label="Warnings" className="list-disc pl-5 text-amber-700 dark:text-amber-300">
          {notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : (
        <p>No warnings.</p>
      )}
      {fix ? (
        <div>
          <Button variant="secondary" onClick={() => onApplyFix(fix)}>
            Apply suggested change
          </Button>
        </div>
      ) : null}
      {outcome.validateOnly ? (
        <table aria-label="Resulting configs" className="w-full text-left text-xs">
          <ColumnHeads titles={["Config", "Value", "Source"]} />
          <tbody>
            {resultingConfigs(topic.configs).map((row) => (
              <tr key={row.name} className="border-b border-line last:border-0">
                <th scope="row" className="py-1 pr-4 font-mono font-medium">
                  {row.name}
                </th>
                <td className="py-1 pr-4 text-ink">{configValueText(row.name, row.value)}</td>
                <td className="py-1">
                  <Badge tone={row.source === "set" ? "accent" : "neutral"}>{row.source}</Badge>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function plural(partitions: number): string {
  return partitions === 1 ? "partition" : "partitions";
}
