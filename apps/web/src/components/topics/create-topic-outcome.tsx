interface Outcome {
  topic: { name: string; partitions: number; cleanupPolicy: string; configs: Record<string, string> };
  validateOnly: boolean;
  warnings: readonly { code: string; message: string }[];
}

/** What a create (or a validate-only check) answered: the resulting configs and any warnings. */
export function CreateTopicOutcome({ outcome }: { outcome: Outcome }) {
  const { topic } = outcome;
  const configs = Object.entries(topic.configs)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
  return (
    <div role="status" className="flex flex-col gap-1 text-sm text-muted">
      <p>
        {outcome.validateOnly
          ? `${topic.name} is valid: it would get ${topic.partitions} ${plural(topic.partitions)} and ${configs || "default configs"}.`
          : `Created topic ${topic.name}.`}
      </p>
      {outcome.warnings.length > 0 ? (
        <ul className="list-disc pl-5 text-amber-700 dark:text-amber-300">
          {outcome.warnings.map((warning) => (
            <li key={warning.code}>{warning.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function plural(partitions: number): string {
  return partitions === 1 ? "partition" : "partitions";
}
