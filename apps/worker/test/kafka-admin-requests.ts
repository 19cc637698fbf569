import { ApiKey, ConfigResourceType } from "@lastword/kafka-protocol";
import type { RawKafka } from "./kafka-client";

// The admin API requests the Kafka tests send on raw frames, shaped once: CreatePartitions and
// DeleteRecords of one topic, and the bodies of AlterConfigs and IncrementalAlterConfigs.

/** CreatePartitions (v3 unless `version`) growing one topic to `count` partitions. */
export function createPartitions(
  conn: RawKafka,
  name: string,
  count: number,
  options: { validateOnly?: boolean; version?: number } = {},
) {
  return conn.call(ApiKey.CreatePartitions, options.version ?? 3, {
    topics: [{ name, count, assignments: null }],
    timeoutMs: 5000,
    validateOnly: options.validateOnly ?? false,
  });
}

/** DeleteRecords (v2 unless `version`) of one partition's records before `offset` (-1: the high watermark). */
export function deleteRecordsBefore(
  conn: RawKafka,
  name: string,
  partitionIndex: number,
  offset: bigint,
  version = 2,
) {
  return conn.call(ApiKey.DeleteRecords, version, {
    topics: [{ name, partitions: [{ partitionIndex, offset }] }],
    timeoutMs: 5000,
  });
}

/** An AlterConfigs body setting `configs` ([name, value]) on topic `topic`. */
export function alterConfigsBody(topic: string, configs: [string, string][], validateOnly = false) {
  const entries = configs.map(([name, value]) => ({ name, value }));
  return {
    resources: [{ resourceType: ConfigResourceType.TOPIC, resourceName: topic, configs: entries }],
    validateOnly,
  };
}

/**
 * An IncrementalAlterConfigs body of `ops` on topic `topic`: [name, operation (AlterConfigOp: 0 SET,
 * 1 DELETE, 2 APPEND, 3 SUBTRACT), value].
 */
export function incrementalAlterBody(
  topic: string,
  ops: [string, number, string | null][],
  validateOnly = false,
) {
  const entries = ops.map(([name, configOperation, value]) => ({ name, configOperation, value }));
  return {
    resources: [{ resourceType: ConfigResourceType.TOPIC, resourceName: topic, configs: entries }],
    validateOnly,
  };
}
