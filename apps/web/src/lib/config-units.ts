import { formatBytes } from "./partition-stats";

// Kafka's "forever": Long.MAX_VALUE milliseconds (max.compaction.lag.ms default) or -1.
const LONG_MAX = "9223372036854775807";

const DURATION_UNITS = [
  { ms: 86_400_000, unit: "d" },
  { ms: 3_600_000, unit: "h" },
  { ms: 60_000, unit: "min" },
  { ms: 1_000, unit: "s" },
] as const;

export function formatDurationMs(ms: number): string {
  if (ms === 0) return "0 ms";
  for (const { ms: size, unit } of DURATION_UNITS) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms} ms`;
}

/**
 * A config value in the unit people think in: `*.ms` as a duration, `*.bytes` in binary units,
 * -1 and Long.MAX as "unlimited". Null when the raw value is already the clearest form.
 */
export function humanConfigValue(name: string, value: string): string | null {
  const isDuration = name.endsWith(".ms");
  const isSize = name.endsWith(".bytes");
  if (!isDuration && !isSize) return null;
  if (value === "-1" || value === LONG_MAX) return "unlimited";
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) return null;
  return isDuration ? formatDurationMs(number) : formatBytes(number);
}

/** A value as text: its human form with the exact Kafka value beside it ("1 h (3600000)"). */
export function configValueText(name: string, value: string): string {
  const human = humanConfigValue(name, value);
  return human === null ? value : `${human} (${value})`;
}
