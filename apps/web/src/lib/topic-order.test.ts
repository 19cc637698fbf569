import { describe, expect, it } from "vitest";
import { filterAndSortTopics } from "./topic-order";

const topics = [
  { name: "orders", partitions: 3, createdAt: "2026-11-30T01:00:00.000Z" },
  { name: "Customer-Profiles", partitions: 6, createdAt: "2026-11-30T00:00:00.000Z" },
  { name: "customers-gdpr", partitions: 3, createdAt: "2026-11-30T02:00:00.000Z" },
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

  it("does not reorder the caller's array", () => {
    filterAndSortTopics(topics, "", "partitions");
    expect(names(topics)).toEqual(["orders", "Customer-Profiles", "customers-gdpr"]);
  });
});
