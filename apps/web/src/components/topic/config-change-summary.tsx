import { configValueText } from "@/lib/config-units";
import type { ConfigEntry } from "./config-entry";

/** What an alterConfigs answered: the diff (or that nothing changes) and the API's warnings. */
export function ConfigChangeSummary(props: {
  changes: readonly { name: string; before: string | null; after: string | null }[];
  warnings: readonly { code: string; message: string }[];
  validateOnly: boolean;
  entries: readonly ConfigEntry[];
}) {
  // The API reports an unset config as null: say which value that means.
  const shown = (name: string, value: string | null) =>
    value === null
      ? `default ${configValueText(name, props.entries.find((entry) => entry.name === name)?.default ?? "")}`
      : configValueText(name, value);
  const lead = props.validateOnly ? "This change is valid and would set:" : "Saved:";
  return (
    <div role="status" className="flex flex-col gap-1 text-sm">
      {props.changes.length === 0 ? (
        <p className="text-muted">Nothing changes: the config already has that value.</p>
      ) : (
        <>
          <p className="text-muted">{lead}</p>
          <ul className="font-mono text-xs">
            {props.changes.map((change) => (
              <li key={change.name}>
                {change.name}: {shown(change.name, change.before)} → {shown(change.name, change.after)}
              </li>
            ))}
          </ul>
        </>
      )}
      {props.warnings.length > 0 ? (
        <ul className="list-disc pl-5 text-amber-700 dark:text-amber-300">
          {props.warnings.map((warning) => (
            <li key={warning.code}>{warning.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
