import { describe, expect, it } from "vitest";
import { filterAndSortTopics } from "./topic-order";

const usage = (sizeBytes: number, dirtyRatio: number, lastCleanAt: string | null) => ({
  sizeBytes,
  dirtyRatio,
  lastCleanAt,
});
const topics = [
  {
    name: "orders",
    partitions: 3,
    createdAt: "2026-11-30T01:00:00.000Z",
    usage: usage(500, 0.2, "2026-11-30T03:00:00.000Z"),
  },
  {
    name: "Customer-Profiles",
    partitions: 6,
    createdAt: "2026-11-30T00:00:00.000Z",
    usage: usage(9_000, 0.1, null),
  },
  {
    name: "customers-gdpr",
    partitions: 3,
    createdAt: "2026-11-30T02:00:00.000Z",
    usage: usage(500, 0.7, "2026-11-30T01:00:00.000Z"),
  },
];
const names = (list: readonly { name: string }[]) => list.map((topic) => topic.name);

describe("filterAndSortTopics", () => {
  it("finds names containing the query regardless of case", () => {
    expect(names(filterAndSortTopics(topics, " CUSTOMER", "name"))).toEqual([
      "Customer-Profiles",
      "customers-gdpr",
    ]);
  });

  it("orders by partitions, most first, then by name", () => {
    expect(names(filterAndSortTopics(topics, "", "partitions"))).toEqual([
      "Customer-Profiles",
      "customers-gdpr",
      "orders",
    ]);
  });

  it("orders newest first", () => {
    expect(names(filterAndSortTopics(topics, "", "newest"))).toEqual([
      "customers-gdpr",
      "orders",
      "Customer-Profiles",
    ]);
  });

  it("orders by size, largest first, name breaking ties", () => {
    expect(names(filterAndSortTopics(topics, "", "size"))).toEqual([
      "Customer-Profiles",
      "customers-gdpr",
      "orders",
    ]);
  });

  it("orders by dirty ratio, dirtiest first", () => {
    expect(names(filterAndSortTopics(topics, "", "dirty"))).toEqual([
      "customers-gdpr",
      "orders",
      "Customer-Profiles",
    ]);
  });

  it("orders by last clean, never cleaned first, then the longest ago", () => {
    expect(names(filterAndSortTopics(topics, "", "lastClean"))).toEqual([
      "Customer-Profiles",
      "customers-gdpr",
      "orders",
    ]);
  });

  it("does not reorder the caller's array", () => {
    filterAndSortTopics(topics, "", "partitions");
    expect(names(topics)).toEqual(["orders", "Customer-Profiles", "customers-gdpr"]);
  });
});
