import { reportedSizeBytes } from "@lastword/api/topic-admin";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode, visible } from "../kafka-authorization";
import { clusterIdOf } from "../kafka-catalog";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import { withSelf } from "../metadata-handler";

type DescribeClusterRequest = RequestBody<60>;
type DescribeClusterResponse = ResponseInput<60>;
type DescribeLogDirsRequest = RequestBody<35>;
type DescribeLogDirsResponse = ResponseInput<35>;

/** DescribeCluster's endpoint type for brokers (v1); controllers are not a tenant's to reach. */
const BROKERS_ENDPOINT = 1;
/** The one log directory each worker reports; where it lives on disk is not the tenant's business. */
export const LOG_DIR_NAME = "lastword";

/**
 * DescribeCluster v0–v1: the same brokers, controller and per-tenant cluster id as Metadata, so a
 * client that asks either sees one cluster.
 */
export async function handleDescribeCluster(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: DescribeClusterRequest,
): Promise<DescribeClusterResponse> {
  const base = {
    throttleTimeMs: 0,
    endpointType: BROKERS_ENDPOINT,
    clusterId: clusterIdOf(session.principal.tenantId),
  };
  if (version >= 1 && request.endpointType !== BROKERS_ENDPOINT) {
    return {
      ...base,
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: "Only the brokers endpoint type (1) is served.",
      controllerId: -1,
      brokers: [],
    };
  }
  const brokers = withSelf(await ctx.catalog.brokers(), ctx.self());
  return {
    ...base,
    errorCode: 0,
    errorMessage: null,
    controllerId: brokers[0]?.nodeId ?? -1,
    brokers: brokers.map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: null })),
  };
}

/**
 * DescribeLogDirs v1–v4: this worker's partitions of the tenant's topics (Kafka asks each broker
 * for its own), sized as the console shows them, from the owner's last stats report. Another
 * tenant's topic is absent, as an unknown one is.
 */
export async function handleDescribeLogDirs(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: DescribeLogDirsRequest,
): Promise<DescribeLogDirsResponse> {
  const { tenantId } = session.principal;
  if (!allowed(session, "DescribeLogDirs")) {
    return { throttleTimeMs: 0, errorCode: refusedCode("DescribeLogDirs"), results: [] };
  }
  const self = ctx.self();
  const wanted =
    request.topics === null ? null : new Map(request.topics.map((t) => [t.topic, new Set(t.partitions)]));
  const topics = (await ctx.catalog.topics(tenantId))
    .filter((t) => (wanted === null || wanted.has(t.name)) && visible(session, "topic", t.name))
    .map((t) => ({
      name: t.name,
      partitions: t.partitions.filter(
        (p) => p.ownerWorkerId === self.workerId && (wanted?.get(t.name)?.has(p.index) ?? true),
      ),
    }))
    .filter((t) => t.partitions.length > 0);
  const rows = await ctx.prisma.partition.findMany({
    where: { id: { in: topics.flatMap((t) => t.partitions.map((p) => p.id)) } },
    select: { id: true, stats: true },
  });
  const sizeOf = new Map(rows.map((r) => [r.id, reportedSizeBytes(r.stats) ?? 0]));
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    results: [
      {
        errorCode: 0,
        logDir: LOG_DIR_NAME,
        topics: topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.index,
            partitionSize: BigInt(sizeOf.get(p.id) ?? 0),
            offsetLag: 0n,
            isFutureKey: false,
          })),
        })),
        totalBytes: -1n,
        usableBytes: -1n,
      },
    ],
  };
}
