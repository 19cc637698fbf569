/**
 * The data plane's route table: every route the worker serves to the web side, by name, with its
 * method and path. The client builds its URLs with `dataPlanePath` and the worker's server answers
 * what `matchDataPlaneRoute` finds, so a route is added, renamed or removed here and nowhere else.
 */
export const PARTITION_ROUTES = {
  produce: { method: "POST", segment: "produce" },
  records: { method: "GET", segment: "records" },
  offsets: { method: "GET", segment: "offsets" },
  segments: { method: "GET", segment: "segments" },
  clean: { method: "POST", segment: "clean" },
  deleteRecords: { method: "POST", segment: "delete-records" },
  lookupKey: { method: "POST", segment: "key" },
  keyVersions: { method: "POST", segment: "key-versions" },
  stream: { method: "GET", segment: "stream" },
  txnMarker: { method: "POST", segment: "txn-marker" },
} as const;

export type PartitionRoute = keyof typeof PARTITION_ROUTES;

/** The tenant-wide route: the Kafka groups one worker coordinates for a tenant. */
export const GROUPS_ROUTE = { method: "GET" } as const;

/** The URL path of a partition route on its owner, or of the tenant's groups. */
export const dataPlanePath = {
  partition: (route: PartitionRoute, partitionId: string): string =>
    `/v1/partitions/${encodeURIComponent(partitionId)}/${PARTITION_ROUTES[route].segment}`,
  groups: (tenantId: string): string => `/v1/tenants/${encodeURIComponent(tenantId)}/groups`,
};

export type MatchedRoute =
  | { kind: "partition"; route: PartitionRoute; partitionId: string }
  | { kind: "groups"; tenantId: string };

const BY_SEGMENT = new Map<string, PartitionRoute>(
  Object.entries(PARTITION_ROUTES).map(([route, { segment }]) => [segment, route as PartitionRoute]),
);
const PARTITION_PATH = /^\/v1\/partitions\/([^/]+)\/([a-z-]+)$/;
const GROUPS_PATH = /^\/v1\/tenants\/([^/]+)\/groups$/;

/**
 * The route a request names, or null: an unknown path, or a known path asked with another method
 * (the worker answers both with BAD_REQUEST naming the method and path).
 */
export function matchDataPlaneRoute(method: string, pathname: string): MatchedRoute | null {
  const groups = GROUPS_PATH.exec(pathname);
  if (groups)
    return method === GROUPS_ROUTE.method
      ? { kind: "groups", tenantId: decodeURIComponent(groups[1]!) }
      : null;
  const partition = PARTITION_PATH.exec(pathname);
  const route = partition ? BY_SEGMENT.get(partition[2]!) : undefined;
  if (!partition || route === undefined || PARTITION_ROUTES[route].method !== method) return null;
  return { kind: "partition", route, partitionId: decodeURIComponent(partition[1]!) };
}
