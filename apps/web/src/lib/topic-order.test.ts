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

  // Each order's expectation, written as the ranking it gives the three topics above.
  const orders = [
    {
      order: "partitions",
      says: "most partitions first, then by name",
      ranking: ["Customer-Profiles", "customers-gdpr", "orders"],
    },
    { order: "newest", says: "newest first", ranking: ["customers-gdpr", "orders", "Customer-Profiles"] },
    {
      order: "size",
      says: "largest first, name breaking ties",
      ranking: ["Customer-Profiles", "customers-gdpr", "orders"],
    },
    { order: "dirty", says: "dirtiest first", ranking: ["customers-gdpr", "orders", "Customer-Profiles"] },
    {
      order: "lastClean",
      says: "never cleaned first, then the longest ago",
      ranking: ["Customer-Profiles", "customers-gdpr", "orders"],
    },
  ] as const;
  it.each(orders)("orders by $order: $says", ({ order, ranking }) => {
    expect(names(filterAndSortTopics(topics, "", order))).toEqual(ranking);
  });

  it("does not reorder the caller's array", () => {
    filterAndSortTopics(topics, "", "partitions");
    expect(names(topics)).toEqual(["orders", "Customer-Profiles", "customers-gdpr"]);
  });
});
