// The naming rule of a compacted topic's latest-value view, below both the topic schemas (a topic
// may not take the suffix) and the authorization (a view is authorized as its topic).

/**
 * The suffix of a compacted topic's read-only latest-value view over Kafka (`<topic>.latest`): a
 * topic may not be named with it, so a view name never shadows a topic and means one topic only.
 */
export const LATEST_VIEW_SUFFIX = ".latest";

/** The topic a view name reads (`orders.latest` → `orders`), or null for a name without the suffix. */
export function latestViewBase(name: string): string | null {
  if (!name.endsWith(LATEST_VIEW_SUFFIX) || name.length === LATEST_VIEW_SUFFIX.length) return null;
  return name.slice(0, -LATEST_VIEW_SUFFIX.length);
}
