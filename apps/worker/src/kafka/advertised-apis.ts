import { ApiKey, isVersionSupported } from "@lastword/kafka-protocol";

/**
 * The APIs and versions every worker advertises in ApiVersions: exactly what the listener serves,
 * identical on every node (kafkajs asks one broker once and uses its answer for all of them).
 * Everything else is left out, so a client fails fast instead of meeting a half-done API.
 */
export const ADVERTISED_APIS: readonly { apiKey: number; minVersion: number; maxVersion: number }[] = [
  // From v0, and served from v0: librdkafka up to 2.x compresses a batch with gzip, snappy or lz4
  // only when the broker's Produce range includes v0 (its table of the first Produce version each
  // codec needs); advertised from v3 it sends them uncompressed. v0–v2 carry RecordBatch v2 as v3
  // does; a magic 0 or 1 message set is refused per partition (produce-batches.ts).
  { apiKey: ApiKey.Produce, minVersion: 0, maxVersion: 9 },
  { apiKey: ApiKey.Fetch, minVersion: 4, maxVersion: 12 },
  { apiKey: ApiKey.ListOffsets, minVersion: 0, maxVersion: 7 },
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
  { apiKey: ApiKey.InitProducerId, minVersion: 0, maxVersion: 4 },
  { apiKey: ApiKey.CreateTopics, minVersion: 2, maxVersion: 7 },
  { apiKey: ApiKey.DeleteTopics, minVersion: 1, maxVersion: 6 },
  { apiKey: ApiKey.DeleteRecords, minVersion: 0, maxVersion: 2 },
  { apiKey: ApiKey.DescribeConfigs, minVersion: 1, maxVersion: 4 },
  { apiKey: ApiKey.AlterConfigs, minVersion: 0, maxVersion: 2 },
  { apiKey: ApiKey.DescribeLogDirs, minVersion: 1, maxVersion: 4 },
  { apiKey: ApiKey.CreatePartitions, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.IncrementalAlterConfigs, minVersion: 0, maxVersion: 1 },
  { apiKey: ApiKey.DescribeCluster, minVersion: 0, maxVersion: 1 },
  { apiKey: ApiKey.OffsetDelete, minVersion: 0, maxVersion: 0 },
  { apiKey: ApiKey.OffsetForLeaderEpoch, minVersion: 0, maxVersion: 4 },
  // Transactions (issue 32): kafkajs 2.2.4 sends v0–v1 of each, librdkafka 2.0.2 AddPartitionsToTxn
  // and AddOffsetsToTxn v0, EndTxn v0–v1, TxnOffsetCommit v0–v3 (KIP-447's generation). Up to v3,
  // the last before KIP-890's broker-side verification (AddPartitionsToTxn v4) and per-transaction
  // epoch bumps (EndTxn v5), which this coordinator does not do.
  { apiKey: ApiKey.AddPartitionsToTxn, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.AddOffsetsToTxn, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.EndTxn, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.TxnOffsetCommit, minVersion: 0, maxVersion: 3 },
  // From v1 (pattern types; Kafka 4 serves Create/DeleteAcls from v1): API keys' resource rules.
  { apiKey: ApiKey.DescribeAcls, minVersion: 1, maxVersion: 3 },
  { apiKey: ApiKey.CreateAcls, minVersion: 1, maxVersion: 3 },
  { apiKey: ApiKey.DeleteAcls, minVersion: 1, maxVersion: 3 },
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
