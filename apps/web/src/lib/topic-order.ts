export type TopicSort = "name" | "partitions" | "newest" | "size" | "dirty" | "lastClean";

interface Sortable {
  name: string;
  partitions: number;
  createdAt: string;
  usage: { sizeBytes: number; dirtyRatio: number; lastCleanAt: string | null };
}

/** Case-insensitive substring search on the name, then the chosen order (name breaks ties). */
export function filterAndSortTopics<T extends Sortable>(
  topics: readonly T[],
  query: string,
  sort: TopicSort,
): T[] {
  const needle = query.trim().toLowerCase();
  const matching = needle ? topics.filter((topic) => topic.name.toLowerCase().includes(needle)) : [...topics];
  const byName = (a: T, b: T) => a.name.localeCompare(b.name);
  const compare: Record<TopicSort, (a: T, b: T) => number> = {
    name: byName,
    partitions: (a, b) => b.partitions - a.partitions || byName(a, b),
    newest: (a, b) => b.createdAt.localeCompare(a.createdAt) || byName(a, b),
    size: (a, b) => b.usage.sizeBytes - a.usage.sizeBytes || byName(a, b),
    dirty: (a, b) => b.usage.dirtyRatio - a.usage.dirtyRatio || byName(a, b),
    // Longest since a clean first: a topic never cleaned is the most overdue.
    lastClean: (a, b) => (a.usage.lastCleanAt ?? "").localeCompare(b.usage.lastCleanAt ?? "") || byName(a, b),
  };
  return matching.sort(compare[sort]);
}
