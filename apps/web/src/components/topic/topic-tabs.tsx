"use client";

import * as Tabs from "@radix-ui/react-tabs";
import { useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import { parseTopicTab, TOPIC_TABS, type TopicTab, topicTabHref } from "@/lib/topic-tabs";

/**
 * The topic page's sections as tabs (Radix: roles, arrow keys, focus). The URL is the state:
 * pushState goes through Next's router, so useSearchParams follows and Back returns to the
 * previous tab; only the active panel mounts, so hidden tabs do not poll.
 */
export function TopicTabs({ panels }: { panels: Record<TopicTab, ReactNode> }) {
  const active = parseTopicTab(useSearchParams().get("tab"));
  const select = (value: string) => {
    window.history.pushState(null, "", topicTabHref(new URL(window.location.href), parseTopicTab(value)));
  };
  return (
    <Tabs.Root value={active} onValueChange={select} className="flex flex-col gap-6">
      <Tabs.List aria-label="Topic sections" className="flex flex-wrap gap-1 border-b border-line">
        {TOPIC_TABS.map((tab) => (
          <Tabs.Trigger
            key={tab.value}
            value={tab.value}
            className="-mb-px rounded-t-md border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted hover:text-ink focus-visible:outline-2 focus-visible:outline-accent data-[state=active]:border-accent data-[state=active]:text-ink"
          >
            {tab.label}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {TOPIC_TABS.map((tab) => (
        <Tabs.Content
          key={tab.value}
          value={tab.value}
          className="flex flex-col gap-6 focus-visible:outline-none"
        >
          {panels[tab.value]}
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}
