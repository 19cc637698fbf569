export type TopicSort = "name" | "partitions" | "newest";

interface Sortable {
  name: string;
  partitions: number;
  createdAt: string;
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
  };
  return matching.sort(compare[sort]);
}
