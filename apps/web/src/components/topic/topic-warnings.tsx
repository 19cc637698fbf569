interface Warning {
  code: string;
  message: string;
}

/**
 * The topic's warnings, the same set the topics list shows (the API computes them in one place):
 * the topic works, but a config, the cleaner, the erasure deadline or its keys say it may not do
 * what was meant.
 */
export function TopicWarnings({ warnings }: { warnings: readonly Warning[] }) {
  if (warnings.length === 0) return null;
  return (
    <section
      aria-labelledby="topic-warnings"
      className="rounded-lg border border-amber-500/40 bg-amber-500/10 p-4 text-sm text-amber-800 dark:text-amber-200"
    >
      <h2 id="topic-warnings" className="font-semibold">
        {warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`}
      </h2>
      <ul className="mt-2 list-disc space-y-1 pl-5">
        {warnings.map((warning) => (
          <li key={warning.code} data-code={warning.code}>
            {warning.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
