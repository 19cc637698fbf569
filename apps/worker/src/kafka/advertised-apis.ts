import { ApiKey, isVersionSupported } from "@lastword/kafka-protocol";

/**
 * The APIs and versions every worker advertises in ApiVersions: exactly what the listener serves,
 * identical on every node (kafkajs asks one broker once and uses its answer for all of them).
 * Everything else is left out, so a client fails fast instead of meeting a half-done API.
 */
export const ADVERTISED_APIS: readonly { apiKey: number; minVersion: number; maxVersion: number }[] = [
  { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 9 },
  { apiKey: ApiKey.Fetch, minVersion: 4, maxVersion: 12 },
  { apiKey: ApiKey.ListOffsets, minVersion: 1, maxVersion: 7 },
  { apiKey: ApiKey.Metadata, minVersion: 1, maxVersion: 12 },
  { apiKey: ApiKey.OffsetCommit, minVersion: 2, maxVersion: 8 },
  { apiKey: ApiKey.OffsetFetch, minVersion: 1, maxVersion: 8 },
  { apiKey: ApiKey.FindCoordinator, minVersion: 0, maxVersion: 4 },
  { apiKey: ApiKey.JoinGroup, minVersion: 2, maxVersion: 7 },
  { apiKey: ApiKey.Heartbeat, minVersion: 0, maxVersion: 4 },
  { apiKey: ApiKey.LeaveGroup, minVersion: 0, maxVersion: 4 },
  { apiKey: ApiKey.SyncGroup, minVersion: 0, maxVersion: 5 },
  { apiKey: ApiKey.DescribeGroups, minVersion: 0, maxVersion: 5 },
  { apiKey: ApiKey.ListGroups, minVersion: 0, maxVersion: 4 },
  { apiKey: ApiKey.SaslHandshake, minVersion: 0, maxVersion: 1 },
  { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.SaslAuthenticate, minVersion: 0, maxVersion: 2 },
  { apiKey: ApiKey.DeleteGroups, minVersion: 0, maxVersion: 2 },
  { apiKey: ApiKey.OffsetForLeaderEpoch, minVersion: 0, maxVersion: 4 },
];

for (const api of ADVERTISED_APIS) {
  if (!isVersionSupported(api.apiKey, api.minVersion) || !isVersionSupported(api.apiKey, api.maxVersion)) {
    throw new Error(
      `advertised API ${api.apiKey} v${api.minVersion}-${api.maxVersion} is outside the codec's schemas`,
    );
  }
}

export function isAdvertised(apiKey: number, version: number): boolean {
  return ADVERTISED_APIS.some(
    (a) => a.apiKey === apiKey && version >= a.minVersion && version <= a.maxVersion,
  );
}
