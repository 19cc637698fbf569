import { describe, expect, it } from "vitest";
import { parseTopicTab, topicTabHref } from "./topic-tabs";

describe("topic tabs", () => {
  it("reads a known tab and falls back to the overview", () => {
    expect(parseTopicTab("messages")).toBe("messages");
    expect(parseTopicTab("nonsense")).toBe("overview");
    expect(parseTopicTab(null)).toBe("overview");
  });

  it("puts the tab in the URL, and the overview without one", () => {
    const here = new URL("http://localhost/topics/orders?tab=configs&x=1");
    expect(topicTabHref(here, "segments")).toBe("/topics/orders?tab=segments&x=1");
    expect(topicTabHref(here, "overview")).toBe("/topics/orders?x=1");
  });
});
