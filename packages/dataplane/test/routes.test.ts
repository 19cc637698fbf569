import { describe, expect, it } from "vitest";
import { dataPlanePath, matchDataPlaneRoute, PARTITION_ROUTES, type PartitionRoute } from "../src/routes";

describe("the data-plane route table", () => {
  it("matches every partition route's path back to that route, partition ids of any characters included", () => {
    for (const route of Object.keys(PARTITION_ROUTES) as PartitionRoute[]) {
      for (const partitionId of ["cm1abc", "a/b c?d%e"]) {
        const path = dataPlanePath.partition(route, partitionId);
        expect(matchDataPlaneRoute(PARTITION_ROUTES[route].method, path)).toEqual({
          kind: "partition",
          route,
          partitionId,
        });
      }
    }
  });

  it("matches the tenant's groups route", () => {
    expect(matchDataPlaneRoute("GET", dataPlanePath.groups("org 1"))).toEqual({
      kind: "groups",
      tenantId: "org 1",
    });
  });

  it("finds no route for another method, an unknown segment or another path", () => {
    expect(matchDataPlaneRoute("GET", dataPlanePath.partition("produce", "p"))).toBeNull();
    expect(matchDataPlaneRoute("POST", dataPlanePath.partition("records", "p"))).toBeNull();
    expect(matchDataPlaneRoute("POST", dataPlanePath.groups("t"))).toBeNull();
    expect(matchDataPlaneRoute("GET", "/v1/partitions/p/nothing")).toBeNull();
    expect(matchDataPlaneRoute("GET", "/v1/partitions/p/records/extra")).toBeNull();
    expect(matchDataPlaneRoute("GET", "/v2/partitions/p/records")).toBeNull();
  });
});
