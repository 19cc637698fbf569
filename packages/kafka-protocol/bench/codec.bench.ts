import { performance } from "node:perf_hooks";
import {
  ApiKey,
  decodeRequest,
  encodeRequest,
  encodeResponse,
  type RequestInput,
  type ResponseInput,
} from "../src";

/*
 * The listener's per-request costs: decode a request, encode its response. Each case runs for
 * about a second after a warm-up; the row is the median of five such rounds. Record sets are
 * opaque views, so the Produce and Fetch rows show what framing costs around them.
 */

const ROUNDS = 5;
const ROUND_MS = 1000;

function measure(run: () => void): number {
  for (let i = 0; i < 2000; i++) run();
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < ROUND_MS) {
      for (let i = 0; i < 100; i++) run();
      count += 100;
    }
    rates.push(count / ((performance.now() - start) / 1000));
  }
  return rates.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
}

const records = Buffer.alloc(1024 * 1024, 7);
const produceBody: RequestInput<typeof ApiKey.Produce> = {
  acks: -1,
  timeoutMs: 30_000,
  topicData: [{ name: "orders", partitionData: [{ index: 0, records }] }],
};
const produceFrame = encodeRequest(
  ApiKey.Produce,
  7,
  { correlationId: 1, clientId: "bench" },
  produceBody,
).subarray(4);
const heartbeatFrame = encodeRequest(
  ApiKey.Heartbeat,
  3,
  { correlationId: 1, clientId: "bench" },
  {
    groupId: "group-1",
    generationId: 4,
    memberId: "member-1",
  },
).subarray(4);
const metadataBody: ResponseInput<typeof ApiKey.Metadata> = {
  brokers: [{ nodeId: 1, host: "broker-1.lastword.test", port: 9092, rack: null }],
  clusterId: "tenant-1",
  controllerId: 1,
  topics: Array.from({ length: 100 }, (_, t) => ({
    name: `topic-${t}`,
    partitions: Array.from({ length: 3 }, (_, p) => ({
      partitionIndex: p,
      leaderId: 1,
      replicaNodes: [1],
      isrNodes: [1],
      offlineReplicas: [],
    })),
  })),
};
const fetchBody: ResponseInput<typeof ApiKey.Fetch> = {
  responses: [
    {
      topic: "orders",
      partitions: [
        { partitionIndex: 0, highWatermark: 10n, lastStableOffset: 10n, logStartOffset: 0n, records },
      ],
    },
  ],
};

const cases: [string, () => void][] = [
  ["decode Heartbeat v3 request", () => decodeRequest(heartbeatFrame)],
  ["decode Produce v7 request (1 MiB records)", () => decodeRequest(produceFrame)],
  ["encode Heartbeat v3 response", () => encodeResponse(ApiKey.Heartbeat, 3, 1, { errorCode: 0 })],
  ["encode Metadata v6 response (100 topics x 3)", () => encodeResponse(ApiKey.Metadata, 6, 1, metadataBody)],
  [
    "encode Metadata v12 response (100 topics x 3)",
    () => encodeResponse(ApiKey.Metadata, 12, 1, metadataBody),
  ],
  ["encode Fetch v11 response (1 MiB records)", () => encodeResponse(ApiKey.Fetch, 11, 1, fetchBody)],
];

console.log(`node ${process.version}; median of ${ROUNDS} rounds of ${ROUND_MS} ms`);
for (const [name, run] of cases) {
  console.log(`${name.padEnd(48)} ${Math.round(measure(run)).toLocaleString("en-US").padStart(12)} ops/s`);
}
