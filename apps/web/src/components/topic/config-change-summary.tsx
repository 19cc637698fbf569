import { configValueText } from "@/lib/config-units";
import type { ConfigEntry } from "./config-entry";

/** The API reports an unset config as null: say which value that means ("default 7 d (604800000)"). */
export function configValueOrDefault(
  entries: readonly ConfigEntry[],
  name: string,
  value: string | null,
): string {
  if (value !== null) return configValueText(name, value);
  const fallback = entries.find((entry) => entry.name === name)?.default;
  return fallback === undefined ? "default" : `default ${configValueText(name, fallback)}`;
}

/** What an alterConfigs answered: the diff (or that nothing changes) and the API's warnings. */
export function ConfigChangeSummary(props: {
  changes: readonly { name: string; before: string | null; after: string | null }[];
  warnings: readonly { code: string; message: string }[];
  validateOnly: boolean;
  entries: readonly ConfigEntry[];
}) {
  const shown = (name: string, value: string | null) => configValueOrDefault(props.entries, name, value);
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
