import type { ReactNode } from "react";

/** The slice of an OpenAPI 3 document the reference page shows. */
export interface ReferenceOperation {
  method: string;
  path: string;
  summary: string;
  tag: string;
  parameters: { name: string; in: string; required: boolean }[];
  hasBody: boolean;
}

const METHOD_STYLES: Record<string, string> = {
  GET: "bg-sky-500/15 text-sky-700 dark:text-sky-300",
  POST: "bg-emerald-500/15 text-emerald-700 dark:text-emerald-300",
  PATCH: "bg-amber-500/15 text-amber-700 dark:text-amber-300",
  DELETE: "bg-rose-500/15 text-rose-700 dark:text-rose-300",
};

export function OperationList({
  tag,
  operations,
}: {
  tag: string;
  operations: ReferenceOperation[];
}): ReactNode {
  return (
    <section aria-labelledby={`tag-${tag}`} className="flex flex-col gap-2">
      <h2 id={`tag-${tag}`} className="text-lg font-semibold capitalize">
        {tag}
      </h2>
      <ul className="flex flex-col divide-y divide-line rounded-md border border-line">
        {operations.map((op) => (
          <li key={`${op.method} ${op.path}`} className="flex flex-col gap-1 px-3 py-2">
            <div className="flex flex-wrap items-center gap-2">
              <span
                className={`w-16 rounded px-2 py-0.5 text-center font-mono text-xs font-semibold ${METHOD_STYLES[op.method] ?? ""}`}
              >
                {op.method}
              </span>
              <code className="font-mono text-sm">/api/v1{op.path}</code>
            </div>
            <p className="text-sm text-muted">{op.summary}</p>
            {op.parameters.length > 0 || op.hasBody ? (
              <p className="text-xs text-muted">
                {op.parameters.map((p) => `${p.name} (${p.in}${p.required ? ", required" : ""})`).join(" · ")}
                {op.hasBody ? `${op.parameters.length > 0 ? " · " : ""}JSON body` : ""}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
