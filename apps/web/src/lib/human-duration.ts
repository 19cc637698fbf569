const UNITS = [
  { ms: 86_400_000, unit: "d" },
  { ms: 3_600_000, unit: "h" },
  { ms: 60_000, unit: "min" },
] as const;

/**
 * A lag as a person says it: the two largest units, rounded down ("8 min", "2 h 5 min", "3 d 4 h");
 * seconds only under a minute, "under 1 s" below that and "0 s" for none.
 */
export function humanDuration(ms: number): string {
  if (ms <= 0) return "0 s";
  if (ms < 1_000) return "under 1 s";
  if (ms < 60_000) return `${Math.floor(ms / 1_000)} s`;
  const first = UNITS.findIndex(({ ms: size }) => ms >= size);
  const parts = UNITS.slice(first, first + 2)
    .map(({ ms: size, unit }, i) => {
      const count = i === 0 ? Math.floor(ms / size) : Math.floor((ms % UNITS[first]!.ms) / size);
      return count > 0 ? `${count} ${unit}` : null;
    })
    .filter((part) => part !== null);
  return parts.join(" ");
}
