/** Kafka's ConfigResource.Type ids, as DescribeConfigs, AlterConfigs and IncrementalAlterConfigs name a resource. */
export const ConfigResourceType = {
  UNKNOWN: 0,
  TOPIC: 2,
  BROKER: 4,
  BROKER_LOGGER: 8,
  CLIENT_METRICS: 16,
  GROUP: 32,
} as const;

/** IncrementalAlterConfigs' AlterConfigOp.OpType ids. */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
