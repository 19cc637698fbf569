import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiKey, decodeRequest, encodeRequest, encodeResponse, isVersionSupported } from "../src";
import type { Plan } from "../src/compile";
import { planFor } from "../src/registry";
import { kafkajsDecodeBatch } from "./kafkajs-harness";
import {
  type PlatformaticApi,
  platformaticApis,
  platformaticParseResponse,
  platformaticRequestFrame,
} from "./platformatic-harness";
import { planArbitrary } from "./schema-arbitrary";

/*
 * Contract tests against @platformatic/kafka 2.12 (dist/apis/<group>/<name>-v<N>.js), a second,
 * hand-written implementation that covers the flexible versions kafkajs never sends
 * (kafka-protocol.md §4.6 step 4): librdkafka and newer clients speak these.
 */

type Struct = Record<string, unknown>;

let apis: PlatformaticApi[] = [];
beforeAll(async () => {
  apis = (await platformaticApis()).filter((api) => isVersionSupported(api.apiKey, api.apiVersion));
});

function platformatic(apiKey: number, apiVersion: number): PlatformaticApi {
  const api = apis.find((a) => a.apiKey === apiKey && a.apiVersion === apiVersion);
  if (!api) throw new Error(`@platformatic/kafka has no ${apiKey} v${apiVersion}`);
  return api;
}

/** The fields a reader that skips tagged fields sees: those in the fixed part at this version. */
function visible(plan: Plan, value: Struct): Struct {
  const out: Struct = {};
  for (const field of plan.fields) {
    const v = value[field.name];
    const struct = field.struct;
    if (!struct || v === null) out[field.name] = v;
    else
      out[field.name] = field.array
        ? (v as Struct[]).map((e) => visible(struct, e))
        : visible(struct, v as Struct);
  }
  return out;
}

/** Error codes it does not know make its parsers throw, so random bodies carry 0 there. */
function withoutErrorCodes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutErrorCodes);
  if (!value || typeof value !== "object" || value instanceof Uint8Array) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, /(^e|E)rrorCode$/.test(k) ? 0 : withoutErrorCodes(v)]),
  );
}

/**
 * Where its response objects differ from the Kafka JSON by design, not by bytes: FindCoordinator
 * v0-3 is reshaped into v4's `coordinators` list, Fetch v4-12 calls the topic name `topicId`
 * and parses records, ListOffsets v0 folds OldStyleOffsets, DescribeConfigs v0 drops IsDefault,
 * Describe/DeleteAcls answers name Kafka's PatternType `resourcePatternType` (as its requests do),
 * and AddPartitionsToTxn v0-3 is reshaped into v4's one-transaction `resultsByTransaction`.
 */
function asPlatformaticShapes(apiKey: number, version: number, expected: Struct): Struct {
  const mapList = (list: unknown, fn: (s: Struct) => Struct) => (list as Struct[]).map(fn);
  /** expected[outer][*][inner][*] without `field`. */
  const dropNested = (outer: string, inner: string, field: string): Struct => ({
    ...expected,
    [outer]: mapList(expected[outer], (o) => ({
      ...o,
      [inner]: mapList(o[inner], ({ [field]: _dropped, ...rest }) => rest),
    })),
  });
  switch (apiKey) {
    case ApiKey.FindCoordinator: {
      if (version >= 4) return expected;
      const { throttleTimeMs, ...coordinator } = expected;
      return { ...(version >= 1 && { throttleTimeMs }), coordinators: [coordinator] };
    }
    case ApiKey.Fetch: {
      const withoutRecords = dropNested("responses", "partitions", "records");
      if (version >= 13) return withoutRecords;
      return {
        ...withoutRecords,
        responses: mapList(withoutRecords.responses, ({ topic, ...t }) => ({ ...t, topicId: topic })),
      };
    }
    case ApiKey.AddPartitionsToTxn: {
      // Up to v3 there is one transaction: platformatic answers in v4's per-transaction shape.
      if (version >= 4) return expected;
      const { throttleTimeMs, resultsByTopicV3AndBelow } = expected;
      return {
        throttleTimeMs,
        resultsByTransaction: [{ transactionalId: "", topicResults: resultsByTopicV3AndBelow }],
      };
    }
    case ApiKey.ListOffsets:
      return version > 0 ? expected : dropNested("topics", "partitions", "oldStyleOffsets");
    case ApiKey.DescribeConfigs:
      return version > 0 ? expected : dropNested("results", "configs", "isDefault");
    case ApiKey.DescribeAcls:
      return { ...expected, resources: mapList(expected.resources, renamePatternType) };
    case ApiKey.DeleteAcls:
      return {
        ...expected,
        filterResults: mapList(expected.filterResults, (f) => ({
          ...f,
          matchingAcls: mapList(f.matchingAcls, renamePatternType),
        })),
      };
    default:
      return expected;
  }
}

function renamePatternType({ patternType, ...rest }: Struct): Struct {
  return patternType === undefined ? rest : { ...rest, resourcePatternType: patternType };
}

/** Deep "received holds expected": Buffers by bytes, arrays by length and element. */
function mismatches(expected: unknown, received: unknown, at: string, out: string[]): void {
  if (expected instanceof Uint8Array) {
    if (!(received instanceof Uint8Array) || !Buffer.from(expected).equals(Buffer.from(received)))
      out.push(at);
  } else if (Array.isArray(expected)) {
    if (!Array.isArray(received) || received.length !== expected.length) out.push(`${at} (length)`);
    else for (const [i, e] of expected.entries()) mismatches(e, received[i], `${at}[${i}]`, out);
  } else if (expected && typeof expected === "object") {
    if (!received || typeof received !== "object") out.push(at);
    else
      for (const [k, v] of Object.entries(expected))
        mismatches(v, (received as Struct)[k], `${at}.${k}`, out);
  } else if (expected !== received) {
    out.push(`${at}: ${String(expected)} != ${String(received)}`);
  }
}

describe("@platformatic/kafka contract: responses", () => {
  it("for every API and version both implement, our random responses parse to the same fixed-part fields", () => {
    expect(apis.length).toBeGreaterThan(150);
    // One module (OffsetCommit v1) ships without a response parser.
    for (const api of apis.filter((a) => typeof a.parseResponse === "function")) {
      const plan = planFor(api.apiKey, api.apiVersion, "response");
      const bodies = planArbitrary(plan).map((body) => withoutErrorCodes(body) as Struct);
      fc.assert(
        fc.property(bodies, (body) => {
          const frame = encodeResponse(api.apiKey as ApiKey, api.apiVersion, 7, body as never);
          const parsed = platformaticParseResponse(api, frame);
          const out: string[] = [];
          mismatches(asPlatformaticShapes(api.apiKey, api.apiVersion, visible(plan, body)), parsed, "", out);
          expect(out, `key ${api.apiKey} v${api.apiVersion}`).toEqual([]);
        }),
        { numRuns: 8 },
      );
    }
  });
});

interface RequestContract {
  apiKey: ApiKey;
  versions: readonly number[];
  /** Positional arguments of its `createRequest`. */
  args: (v: number) => unknown[];
  request: (v: number) => object;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const topicId = "5f1f8a2c-0d3b-4c7e-9a41-2b6c8d0e1f23";

const requests: RequestContract[] = [
  {
    apiKey: ApiKey.ApiVersions,
    versions: range(3, 4),
    args: () => ["librdkafka", "2.15.0"],
    request: () => ({ clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.15.0" }),
  },
  {
    apiKey: ApiKey.SaslAuthenticate,
    versions: [2],
    args: () => [Buffer.from("\0key\0secret")],
    request: () => ({ authBytes: Buffer.from("\0key\0secret") }),
  },
  {
    apiKey: ApiKey.Metadata,
    versions: range(9, 12),
    args: (v) => [v >= 10 ? [{ name: "orders", topicId }] : ["orders"], false, true, v <= 10],
    request: (v) => ({
      // Its metadata-v10/v11 always write a null (zero) topic id; v12 writes the one given.
      topics: [{ name: "orders", topicId: v >= 12 ? topicId : "00000000-0000-0000-0000-000000000000" }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: true,
      includeClusterAuthorizedOperations: v <= 10,
    }),
  },
  {
    apiKey: ApiKey.Fetch,
    versions: [12],
    args: () => [
      500,
      1,
      1_048_576,
      1,
      0,
      -1,
      [
        {
          topicId: "orders",
          partitions: [
            {
              partition: 3,
              currentLeaderEpoch: 7,
              fetchOffset: 42n,
              lastFetchedEpoch: 6,
              partitionMaxBytes: 65_536,
            },
          ],
        },
      ],
      [{ topic: "old", partitions: [1, 2] }],
      "rack-a",
    ],
    request: () => ({
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 1_048_576,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: "orders",
          partitions: [
            {
              partition: 3,
              currentLeaderEpoch: 7,
              fetchOffset: 42n,
              lastFetchedEpoch: 6,
              logStartOffset: -1n,
              partitionMaxBytes: 65_536,
            },
          ],
        },
      ],
      forgottenTopicsData: [{ topic: "old", partitions: [1, 2] }],
      rackId: "rack-a",
    }),
  },
  {
    apiKey: ApiKey.ListOffsets,
    versions: range(6, 7),
    args: () => [
      -1,
      1,
      [{ name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] }],
    ],
    request: () => ({
      replicaId: -1,
      isolationLevel: 1,
      topics: [
        { name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] },
      ],
    }),
  },
  {
    apiKey: ApiKey.FindCoordinator,
    versions: range(3, 4),
    args: () => [0, ["group-1"]],
    request: (v) => (v === 3 ? { key: "group-1", keyType: 0 } : { keyType: 0, coordinatorKeys: ["group-1"] }),
  },
  {
    apiKey: ApiKey.JoinGroup,
    versions: range(6, 7),
    args: () => [
      "group-1",
      45_000,
      300_000,
      "",
      null,
      "consumer",
      [{ name: "range", metadata: Buffer.from([1]) }],
    ],
    request: () => ({
      groupId: "group-1",
      sessionTimeoutMs: 45_000,
      rebalanceTimeoutMs: 300_000,
      memberId: "",
      groupInstanceId: null,
      protocolType: "consumer",
      protocols: [{ name: "range", metadata: Buffer.from([1]) }],
    }),
  },
  {
    apiKey: ApiKey.SyncGroup,
    versions: [5],
    args: () => [
      "group-1",
      2,
      "m-1",
      null,
      "consumer",
      "range",
      [{ memberId: "m-1", assignment: Buffer.from([4]) }],
    ],
    request: () => ({
      groupId: "group-1",
      generationId: 2,
      memberId: "m-1",
      groupInstanceId: null,
      protocolType: "consumer",
      protocolName: "range",
      assignments: [{ memberId: "m-1", assignment: Buffer.from([4]) }],
    }),
  },
  {
    apiKey: ApiKey.Heartbeat,
    versions: [4],
    args: () => ["group-1", 2, "m-1", "static-1"],
    request: () => ({ groupId: "group-1", generationId: 2, memberId: "m-1", groupInstanceId: "static-1" }),
  },
  {
    apiKey: ApiKey.LeaveGroup,
    versions: [4],
    args: () => ["group-1", [{ memberId: "m-1", groupInstanceId: null }]],
    request: () => ({ groupId: "group-1", members: [{ memberId: "m-1", groupInstanceId: null }] }),
  },
  {
    apiKey: ApiKey.OffsetCommit,
    versions: [8],
    args: () => [
      "group-1",
      2,
      "m-1",
      null,
      [
        {
          name: "orders",
          partitions: [
            { partitionIndex: 1, committedOffset: 99n, committedLeaderEpoch: 4, committedMetadata: null },
          ],
        },
      ],
    ],
    request: () => ({
      groupId: "group-1",
      generationIdOrMemberEpoch: 2,
      memberId: "m-1",
      groupInstanceId: null,
      topics: [
        {
          name: "orders",
          partitions: [
            { partitionIndex: 1, committedOffset: 99n, committedLeaderEpoch: 4, committedMetadata: null },
          ],
        },
      ],
    }),
  },
  {
    apiKey: ApiKey.OffsetFetch,
    versions: range(7, 8),
    args: () => [[{ groupId: "group-1", topics: [{ name: "orders", partitionIndexes: [0, 1] }] }], true],
    request: (v) =>
      v === 7
        ? { groupId: "group-1", topics: [{ name: "orders", partitionIndexes: [0, 1] }], requireStable: true }
        : {
            groups: [{ groupId: "group-1", topics: [{ name: "orders", partitionIndexes: [0, 1] }] }],
            requireStable: true,
          },
  },
  {
    apiKey: ApiKey.InitProducerId,
    versions: range(3, 4),
    args: () => [null, 60_000, 1234n, 3],
    request: () => ({
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: 1234n,
      producerEpoch: 3,
    }),
  },
  {
    apiKey: ApiKey.CreateTopics,
    versions: range(5, 7),
    args: () => [
      [
        {
          name: "orders",
          numPartitions: 3,
          replicationFactor: 1,
          assignments: [{ partitionIndex: 0, brokerIds: [1] }],
          configs: [{ name: "cleanup.policy", value: "compact" }],
        },
      ],
      30_000,
      false,
    ],
    request: () => ({
      topics: [
        {
          name: "orders",
          numPartitions: 3,
          replicationFactor: 1,
          assignments: [{ partitionIndex: 0, brokerIds: [1] }],
          configs: [{ name: "cleanup.policy", value: "compact" }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    }),
  },
  {
    apiKey: ApiKey.DeleteTopics,
    versions: range(4, 6),
    args: (v) => [[v >= 6 ? { name: null, topicId } : { name: "orders" }], 5000],
    request: (v) =>
      v >= 6
        ? { topics: [{ name: null, topicId }], timeoutMs: 5000 }
        : { topicNames: ["orders"], timeoutMs: 5000 },
  },
  {
    apiKey: ApiKey.DescribeConfigs,
    versions: [4],
    args: () => [[{ resourceType: 2, resourceName: "orders", configurationKeys: null }], true, true],
    request: () => ({
      resources: [{ resourceType: 2, resourceName: "orders", configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: true,
    }),
  },
  {
    apiKey: ApiKey.AlterConfigs,
    versions: [2],
    args: () => [
      [{ resourceType: 2, resourceName: "orders", configs: [{ name: "segment.ms", value: null }] }],
      true,
    ],
    request: () => ({
      resources: [
        { resourceType: 2, resourceName: "orders", configs: [{ name: "segment.ms", value: null }] },
      ],
      validateOnly: true,
    }),
  },
  {
    apiKey: ApiKey.IncrementalAlterConfigs,
    versions: [1],
    args: () => [
      [
        {
          resourceType: 2,
          resourceName: "orders",
          configs: [{ name: "segment.ms", configOperation: 0, value: "1000" }],
        },
      ],
      false,
    ],
    request: () => ({
      resources: [
        {
          resourceType: 2,
          resourceName: "orders",
          configs: [{ name: "segment.ms", configOperation: 0, value: "1000" }],
        },
      ],
      validateOnly: false,
    }),
  },
  {
    apiKey: ApiKey.CreatePartitions,
    versions: range(2, 3),
    args: () => [[{ name: "orders", count: 4, assignments: [{ brokerIds: [1] }] }], 5000, true],
    request: () => ({
      topics: [{ name: "orders", count: 4, assignments: [{ brokerIds: [1] }] }],
      timeoutMs: 5000,
      validateOnly: true,
    }),
  },
  {
    apiKey: ApiKey.DeleteRecords,
    versions: [2],
    args: () => [[{ name: "orders", partitions: [{ partitionIndex: 0, offset: 10n }] }], 5000],
    request: () => ({
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, offset: 10n }] }],
      timeoutMs: 5000,
    }),
  },
  {
    apiKey: ApiKey.OffsetForLeaderEpoch,
    versions: range(3, 4),
    args: () => [
      -1,
      [{ name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: 5, leaderEpoch: 4 }] }],
    ],
    request: () => ({
      replicaId: -1,
      topics: [{ topic: "orders", partitions: [{ partition: 0, currentLeaderEpoch: 5, leaderEpoch: 4 }] }],
    }),
  },
  {
    apiKey: ApiKey.DescribeCluster,
    versions: range(0, 1),
    args: (v) => (v === 0 ? [true] : [true, 1]),
    request: () => ({ includeClusterAuthorizedOperations: true, endpointType: 1 }),
  },
  {
    apiKey: ApiKey.DescribeLogDirs,
    versions: range(2, 4),
    args: () => [[{ name: "orders", partitions: [0, 1] }]],
    request: () => ({ topics: [{ topic: "orders", partitions: [0, 1] }] }),
  },
  {
    apiKey: ApiKey.OffsetDelete,
    versions: [0],
    args: () => ["group-1", [{ name: "orders", partitions: [{ partitionIndex: 2 }] }]],
    request: () => ({
      groupId: "group-1",
      topics: [{ name: "orders", partitions: [{ partitionIndex: 2 }] }],
    }),
  },
  {
    apiKey: ApiKey.DescribeGroups,
    versions: range(3, 5),
    args: () => [["group-1"], true],
    request: () => ({ groups: ["group-1"], includeAuthorizedOperations: true }),
  },
  {
    apiKey: ApiKey.ListGroups,
    versions: [4],
    args: () => [["STABLE"]],
    request: () => ({ statesFilter: ["Stable"] }),
  },
  {
    apiKey: ApiKey.DeleteGroups,
    versions: [2],
    args: () => [["group-1", "group-2"]],
    request: () => ({ groupsNames: ["group-1", "group-2"] }),
  },
];

describe.each(requests)("@platformatic/kafka contract: request key $apiKey", (contract) => {
  it.each(contract.versions)(
    "v%i: its bytes decode to the Kafka JSON fields and re-encode identically",
    (v) => {
      const frame = platformaticRequestFrame(
        platformatic(contract.apiKey, v),
        7,
        "contract-test",
        contract.args(v),
      );
      const decoded = decodeRequest(frame.subarray(4), { rejectTrailingBytes: true });
      expect(decoded.header).toEqual({
        requestApiKey: contract.apiKey,
        requestApiVersion: v,
        correlationId: 7,
        clientId: "contract-test",
      });
      expect(decoded.body).toMatchObject(contract.request(v));
      expect(encodeRequest(contract.apiKey, v, decoded.header, decoded.body as never).equals(frame)).toBe(
        true,
      );
    },
  );
});

describe("@platformatic/kafka contract: produce", () => {
  it("Produce v9: its compact record set arrives as a RecordBatch view that kafkajs's batch decoder reads", async () => {
    const messages = [
      {
        topic: "orders",
        partition: 2,
        key: Buffer.from("k1"),
        value: Buffer.from("v1"),
        timestamp: 1_700_000_000_000n,
      },
      { topic: "orders", partition: 2, key: Buffer.from("k2"), value: null, timestamp: 1_700_000_000_001n },
    ];
    const frame = platformaticRequestFrame(platformatic(ApiKey.Produce, 9), 7, "contract-test", [
      -1,
      30_000,
      messages,
    ]);
    const decoded = decodeRequest(frame.subarray(4), { rejectTrailingBytes: true });
    if (decoded.apiKey !== ApiKey.Produce) throw new Error("expected Produce");
    expect(decoded.body).toMatchObject({ transactionalId: null, acks: -1, timeoutMs: 30_000 });
    const partition = decoded.body.topicData[0]?.partitionData[0];
    expect(partition?.index).toBe(2);
    const records = await kafkajsDecodeBatch(partition?.records ?? Buffer.alloc(0));
    expect(records.map((r) => [r.key?.toString(), r.value?.toString() ?? null])).toEqual([
      ["k1", "v1"],
      ["k2", null],
    ]);
  });
});
