/**
 * The topic page's tabs, in order. The active one lives in the URL (`?tab=messages`) so a link or
 * a reload opens the same tab; overview is the default and keeps the plain `/topics/<name>` URL.
 */
export const TOPIC_TABS = [
  { value: "overview", label: "Overview" },
  { value: "messages", label: "Messages" },
  { value: "consumers", label: "Consumers" },
  { value: "segments", label: "Segments & cleaner" },
  { value: "configs", label: "Configs" },
] as const;

export type TopicTab = (typeof TOPIC_TABS)[number]["value"];

export const DEFAULT_TOPIC_TAB: TopicTab = "overview";

/** An unknown or missing `?tab=` falls back to the overview rather than an empty page. */
export function parseTopicTab(value: string | null | undefined): TopicTab {
  return TOPIC_TABS.find((tab) => tab.value === value)?.value ?? DEFAULT_TOPIC_TAB;
}

/** The URL for `tab` on the current page, keeping any other search parameters. */
export function topicTabHref(current: URL, tab: TopicTab): string {
  const next = new URL(current);
  if (tab === DEFAULT_TOPIC_TAB) next.searchParams.delete("tab");
  else next.searchParams.set("tab", tab);
  return `${next.pathname}${next.search}${next.hash}`;
}
