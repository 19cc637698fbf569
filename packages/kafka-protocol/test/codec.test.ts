import { describe, expect, it } from "vitest";
import {
  ApiKey,
  apiKeyName,
  apiSchemas,
  decodeRequest,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  encodeResponse,
  errorName,
  KafkaProtocolError,
  requestHeaderVersion,
  responseHeaderVersion,
  supportedVersions,
} from "../src";

/** Frame bytes from hex with spaces, for byte vectors written out from the Kafka JSON by hand. */
const hex = (text: string) => Buffer.from(text.replaceAll(" ", ""), "hex");
const ascii = (text: string) => Buffer.from(text).toString("hex");
const withSize = (payload: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, payload.length]), payload]);

function thrown(fn: () => unknown): KafkaProtocolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof KafkaProtocolError) return error;
    throw error;
  }
  throw new Error("expected a KafkaProtocolError");
}

describe("headers (RequestHeader.json, ResponseHeader.json)", () => {
  it("picks request header v2 and response header v1 for flexible versions, v1/v0 otherwise", () => {
    expect(requestHeaderVersion(ApiKey.Metadata, 8)).toBe(1);
    expect(requestHeaderVersion(ApiKey.Metadata, 9)).toBe(2);
    expect(responseHeaderVersion(ApiKey.Metadata, 8)).toBe(0);
    expect(responseHeaderVersion(ApiKey.Metadata, 9)).toBe(1);
    expect(requestHeaderVersion(ApiKey.SaslHandshake, 1)).toBe(1); // never flexible
  });

  it("ApiVersions always answers with response header v0, even at flexible v3 (ApiMessageTypeGenerator)", () => {
    expect(requestHeaderVersion(ApiKey.ApiVersions, 3)).toBe(2);
    expect(responseHeaderVersion(ApiKey.ApiVersions, 3)).toBe(0);
    const frame = encodeResponse(ApiKey.ApiVersions, 3, 5, {
      errorCode: 0,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
      throttleTimeMs: 0,
    });
    // correlation id, then straight into the body: error, compact array (2 = one entry), entry + its tags, throttle, tags.
    expect(frame).toEqual(withSize(hex("00000005 0000 02 0012 0000 0003 00 00000000 00")));
  });

  it("request header v2 keeps the client id's int16 length and puts the tag buffer after it (librdkafka's ApiVersions v3)", () => {
    const payload = hex(
      `0012 0003 00000001 0007 ${ascii("rdkafka")} 00 0b ${ascii("librdkafka")} 06 ${ascii("2.0.2")} 00`,
    );
    const decoded = decodeRequest(payload);
    expect(decoded.header).toEqual({
      requestApiKey: 18,
      requestApiVersion: 3,
      correlationId: 1,
      clientId: "rdkafka",
    });
    expect(decoded.body).toEqual({ clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.0.2" });
    const reencoded = encodeRequest(ApiKey.ApiVersions, 3, decoded.header, decoded.body as never);
    expect(reencoded).toEqual(withSize(payload));
  });

  it("a null client id is int16 -1 in both header versions", () => {
    for (const version of [2, 3]) {
      const frame = encodeRequest(ApiKey.ApiVersions, version, { correlationId: 9, clientId: null }, {});
      expect(frame.readInt16BE(12)).toBe(-1);
      expect(decodeRequest(frame.subarray(4)).header.clientId).toBeNull();
    }
  });
});

describe("flexible encodings", () => {
  it("compact arrays and strings are uvarint(n+1) with 0 for null (Metadata v9: null topics = all)", () => {
    const frame = encodeRequest(ApiKey.Metadata, 9, { correlationId: 1, clientId: null }, { topics: null });
    // header v2: key, version, correlation id, null client id, tags; body: null array, three bools
    // (allowAutoTopicCreation defaults to true), tags.
    expect(frame).toEqual(withSize(hex("0003 0009 00000001 ffff 00 00 01 00 00 00")));
    const named = encodeRequest(ApiKey.Metadata, 9, { correlationId: 1 }, { topics: [{ name: "ab" }] });
    expect(named.subarray(4 + 11, 4 + 11 + 5)).toEqual(hex(`02 03 ${ascii("ab")} 00`));
  });

  it("tagged fields are written in tag order and only when not at their default (ApiVersions v3 tags 1 and 3)", () => {
    const frame = encodeResponse(ApiKey.ApiVersions, 3, 5, {
      zkMigrationReady: true,
      finalizedFeaturesEpoch: 5n,
    });
    // throttle, then 2 tags: tag 1 (8 bytes) then tag 3 (1 byte).
    expect(frame.subarray(-18)).toEqual(hex("00000000 02 01 08 0000000000000005 03 01 01"));
    const decoded = decodeResponse(ApiKey.ApiVersions, 3, frame.subarray(4));
    expect(decoded.body).toMatchObject({
      zkMigrationReady: true,
      finalizedFeaturesEpoch: 5n,
      supportedFeatures: [],
    });
  });

  it("unknown tags are skipped, not rejected (Kafka's generated readers)", () => {
    // ApiVersions v3 request, body tags: count 2, unknown tag 7 (3 bytes), unknown tag 9 (0 bytes).
    const payload = hex(`0012 0003 00000001 ffff 00 01 01 02 07 03 aabbcc 09 00`);
    expect(decodeRequest(payload).body).toEqual({ clientSoftwareName: "", clientSoftwareVersion: "" });
  });

  it("a known tagged field whose size disagrees with its content is INVALID_LENGTH", () => {
    // ApiVersions v3 response, tag 3 (zkMigrationReady, a bool) claiming 2 bytes.
    const payload = hex("00000005 0000 01 00000000 01 03 02 0100");
    expect(thrown(() => decodeResponse(ApiKey.ApiVersions, 3, payload)).code).toBe("INVALID_LENGTH");
  });

  it("UUIDs travel as 16 raw bytes (Metadata v10 topicId)", () => {
    const topicId = "0b6e1f8c-3d2a-4f5e-9a7b-1c2d3e4f5a6b";
    const frame = encodeResponse(ApiKey.Metadata, 10, 1, { topics: [{ name: "t", topicId }] });
    expect(frame.includes(hex(topicId.replaceAll("-", "")))).toBe(true);
    expect(decodeResponse(ApiKey.Metadata, 10, frame.subarray(4)).body.topics[0]?.topicId).toBe(topicId);
  });
});

describe("defaults and validation", () => {
  it("fields left out encode as their JSON defaults and decode back to them", () => {
    const frame = encodeResponse(ApiKey.Metadata, 7, 1, { topics: [{ name: "t", partitions: [{}] }] });
    const { body } = decodeResponse(ApiKey.Metadata, 7, frame.subarray(4));
    expect(body).toMatchObject({ controllerId: -1, clusterId: null, brokers: [] });
    expect(body.topics[0]?.partitions[0]).toEqual({
      errorCode: 0,
      partitionIndex: 0,
      leaderId: 0,
      leaderEpoch: -1,
      replicaNodes: [],
      isrNodes: [],
      offlineReplicas: [],
    });
  });

  it("a decoded body has every schema field, at its default where the version lacks it", () => {
    const frame = encodeRequest(ApiKey.JoinGroup, 0, { correlationId: 1 }, { groupId: "g" });
    const { body } = decodeRequest(frame.subarray(4));
    expect(body).toMatchObject({ groupId: "g", rebalanceTimeoutMs: -1, groupInstanceId: null, reason: null });
  });

  it("null where the version does not allow it is NULL_NOT_ALLOWED, encoding and decoding", () => {
    expect(thrown(() => encodeResponse(ApiKey.Metadata, 1, 1, { topics: null as never })).code).toBe(
      "NULL_NOT_ALLOWED",
    );
    // SaslHandshake v1 with mechanism length -1.
    expect(thrown(() => decodeRequest(hex("0011 0001 00000001 ffff ffff"))).code).toBe("NULL_NOT_ALLOWED");
  });

  it("values a field cannot hold are INVALID_VALUE, never a RangeError from Buffer", () => {
    expect(thrown(() => encodeResponse(ApiKey.Heartbeat, 0, 1, { errorCode: 40_000 })).code).toBe(
      "INVALID_VALUE",
    );
    expect(thrown(() => encodeResponse(ApiKey.InitProducerId, 0, 1, { producerId: 2n ** 63n })).code).toBe(
      "INVALID_VALUE",
    );
    expect(
      thrown(() =>
        encodeRequest(ApiKey.SaslHandshake, 1, { correlationId: 1 }, { mechanism: "x".repeat(40_000) }),
      ).code,
    ).toBe("INVALID_VALUE");
  });

  it("bytes after a request body are ignored as Kafka does (AbstractRequest.parseRequest), or TRAILING_BYTES when asked", () => {
    const frame = encodeRequest(ApiKey.Heartbeat, 0, { correlationId: 1 }, { groupId: "g" });
    const padded = Buffer.concat([frame.subarray(4), Buffer.from([0])]);
    expect(decodeRequest(padded).body).toMatchObject({ groupId: "g" });
    expect(thrown(() => decodeRequest(padded, { rejectTrailingBytes: true })).code).toBe("TRAILING_BYTES");
    const response = encodeResponse(ApiKey.Heartbeat, 0, 1, {});
    expect(
      thrown(() =>
        decodeResponse(ApiKey.Heartbeat, 0, Buffer.concat([response.subarray(4), Buffer.from([0])])),
      ).code,
    ).toBe("TRAILING_BYTES");
  });
});

describe("versions and keys", () => {
  it("an unsupported version carries the header, so ApiVersions can be answered in the v0 layout (RequestContext.java)", () => {
    const error = thrown(() => decodeRequest(hex("0012 0009 0000002a ffff 00 00")));
    expect(error.code).toBe("UNSUPPORTED_VERSION");
    expect(error.header).toEqual({ apiKey: 18, apiVersion: 9, correlationId: 42 });
  });

  it("a version the caller does not serve is UNSUPPORTED_VERSION before the body is read", () => {
    const frame = encodeRequest(ApiKey.Produce, 10, { correlationId: 4 }, {}).subarray(4);
    const accepts = (apiKey: number, version: number) => apiKey !== ApiKey.Produce || version <= 9;
    const error = thrown(() => decodeRequest(frame, { accepts }));
    expect(error.code).toBe("UNSUPPORTED_VERSION");
    expect(error.header).toEqual({ apiKey: 0, apiVersion: 10, correlationId: 4 });
    expect(decodeRequest(frame).apiVersion).toBe(10);
  });

  it("an API key without a schema is UNKNOWN_API, with the header", () => {
    const error = thrown(() => decodeRequest(hex("0063 0000 00000003 ffff")));
    expect(error.code).toBe("UNKNOWN_API");
    expect(error.header?.correlationId).toBe(3);
  });

  it("the codec covers at least the ranges the Kafka listener advertises and will advertise", () => {
    const needed: [ApiKey, number, number][] = [
      [ApiKey.ApiVersions, 0, 3],
      [ApiKey.SaslHandshake, 0, 1],
      [ApiKey.SaslAuthenticate, 0, 2],
      [ApiKey.Metadata, 0, 12],
      [ApiKey.Produce, 3, 9],
      [ApiKey.Fetch, 4, 12],
      [ApiKey.ListOffsets, 1, 7],
      [ApiKey.FindCoordinator, 0, 4],
      [ApiKey.JoinGroup, 0, 7],
      [ApiKey.SyncGroup, 0, 5],
      [ApiKey.Heartbeat, 0, 4],
      [ApiKey.LeaveGroup, 0, 4],
      [ApiKey.OffsetCommit, 2, 8],
      [ApiKey.OffsetFetch, 1, 8],
      [ApiKey.DescribeGroups, 0, 5],
      [ApiKey.ListGroups, 0, 4],
      [ApiKey.DeleteGroups, 0, 2],
      [ApiKey.InitProducerId, 0, 4],
      [ApiKey.CreateTopics, 2, 7],
      [ApiKey.DeleteTopics, 1, 6],
      [ApiKey.DescribeConfigs, 1, 4],
      [ApiKey.AlterConfigs, 0, 2],
      [ApiKey.IncrementalAlterConfigs, 0, 1],
      [ApiKey.CreatePartitions, 0, 3],
      [ApiKey.DeleteRecords, 0, 2],
      [ApiKey.OffsetForLeaderEpoch, 2, 4],
      [ApiKey.DescribeCluster, 0, 1],
      [ApiKey.DescribeLogDirs, 1, 4],
      [ApiKey.OffsetDelete, 0, 0],
      [ApiKey.DescribeAcls, 1, 3],
      [ApiKey.CreateAcls, 1, 3],
      [ApiKey.DeleteAcls, 1, 3],
      [ApiKey.AddPartitionsToTxn, 0, 3],
      [ApiKey.AddOffsetsToTxn, 0, 3],
      [ApiKey.EndTxn, 0, 3],
      [ApiKey.TxnOffsetCommit, 0, 3],
    ];
    for (const [apiKey, min, max] of needed) {
      const range = supportedVersions.find((entry) => entry.apiKey === apiKey);
      expect(range, apiKeyName(apiKey)).toBeDefined();
      expect(range?.minVersion).toBeLessThanOrEqual(min);
      expect(range?.maxVersion).toBeGreaterThanOrEqual(max);
    }
    expect(supportedVersions).toHaveLength(needed.length);
  });

  it("ApiKey names and numbers agree with each schema's JSON apiKey and name", () => {
    for (const [name, key] of Object.entries(ApiKey)) {
      expect(apiSchemas[key].apiKey).toBe(key);
      expect(apiSchemas[key].name).toBe(name);
      expect(apiKeyName(key)).toBe(name);
    }
    expect(apiKeyName(99)).toBe("unknown(99)");
  });

  it("error codes match Errors.java for the codes the listener uses", () => {
    const expected: Record<string, number> = {
      NONE: 0,
      OFFSET_OUT_OF_RANGE: 1,
      CORRUPT_MESSAGE: 2,
      UNKNOWN_TOPIC_OR_PARTITION: 3,
      INVALID_FETCH_SIZE: 4,
      LEADER_NOT_AVAILABLE: 5,
      NOT_LEADER_OR_FOLLOWER: 6,
      REQUEST_TIMED_OUT: 7,
      MESSAGE_TOO_LARGE: 10,
      COORDINATOR_LOAD_IN_PROGRESS: 14,
      COORDINATOR_NOT_AVAILABLE: 15,
      NOT_COORDINATOR: 16,
      INVALID_REQUIRED_ACKS: 21,
      ILLEGAL_GENERATION: 22,
      INCONSISTENT_GROUP_PROTOCOL: 23,
      UNKNOWN_MEMBER_ID: 25,
      INVALID_SESSION_TIMEOUT: 26,
      REBALANCE_IN_PROGRESS: 27,
      TOPIC_AUTHORIZATION_FAILED: 29,
      GROUP_AUTHORIZATION_FAILED: 30,
      UNSUPPORTED_SASL_MECHANISM: 33,
      ILLEGAL_SASL_STATE: 34,
      UNSUPPORTED_VERSION: 35,
      TOPIC_ALREADY_EXISTS: 36,
      INVALID_PARTITIONS: 37,
      INVALID_REPLICATION_FACTOR: 38,
      INVALID_CONFIG: 40,
      INVALID_REQUEST: 42,
      POLICY_VIOLATION: 44,
      OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
      DUPLICATE_SEQUENCE_NUMBER: 46,
      INVALID_PRODUCER_EPOCH: 47,
      TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
      SASL_AUTHENTICATION_FAILED: 58,
      UNKNOWN_PRODUCER_ID: 59,
      NON_EMPTY_GROUP: 68,
      GROUP_ID_NOT_FOUND: 69,
      FENCED_LEADER_EPOCH: 74,
      UNKNOWN_LEADER_EPOCH: 75,
      UNSUPPORTED_COMPRESSION_TYPE: 76,
      MEMBER_ID_REQUIRED: 79,
      INVALID_RECORD: 87,
      UNKNOWN_TOPIC_ID: 100,
    };
    expect(
      Object.fromEntries(
        Object.keys(expected).map((name) => [name, ErrorCode[name as keyof typeof ErrorCode]]),
      ),
    ).toEqual(expected);
    expect(errorName(58)).toBe("SASL_AUTHENTICATION_FAILED");
    expect(errorName(-1)).toBe("UNKNOWN_SERVER_ERROR");
    expect(errorName(9999)).toBe("UNKNOWN(9999)");
  });
});
