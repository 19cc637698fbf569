import { AssignerProtocol } from "kafkajs";
import { describe, expect, it } from "vitest";
import { decodeConsumerAssignment, decodeConsumerSubscription, KafkaProtocolError } from "../src/index";

// kafkajs's own encoders write the bytes a real member sends (JoinGroup metadata, SyncGroup assignment).

describe("consumer protocol", () => {
  it("decodes kafkajs's member assignment per topic, in the leader's order", () => {
    const bytes = AssignerProtocol.MemberAssignment.encode({
      version: 1,
      assignment: { orders: [0, 2, 5], payments: [1] },
      userData: Buffer.from("sticky"),
    });
    expect(decodeConsumerAssignment(bytes)).toEqual({
      version: 1,
      topics: [
        { topic: "orders", partitions: [0, 2, 5] },
        { topic: "payments", partitions: [1] },
      ],
    });
  });

  it("reads an empty buffer as no assignment and an empty list as none", () => {
    expect(decodeConsumerAssignment(Buffer.alloc(0)).topics).toEqual([]);
    const none = AssignerProtocol.MemberAssignment.encode({
      version: 0,
      assignment: {},
      userData: Buffer.alloc(0),
    });
    expect(decodeConsumerAssignment(none).topics).toEqual([]);
  });

  it("decodes kafkajs's subscription metadata", () => {
    const bytes = AssignerProtocol.MemberMetadata.encode({
      version: 0,
      topics: ["orders", "payments"],
      userData: Buffer.alloc(0),
    });
    expect(decodeConsumerSubscription(bytes)).toEqual({ version: 0, topics: ["orders", "payments"] });
  });

  it("refuses a truncated assignment and a count larger than the bytes", () => {
    const bytes = AssignerProtocol.MemberAssignment.encode({
      version: 0,
      assignment: { orders: [0, 1] },
      userData: Buffer.alloc(0),
    });
    expect(() => decodeConsumerAssignment(bytes.subarray(0, 12))).toThrow(KafkaProtocolError);
    const huge = Buffer.from([0, 0, 0x7f, 0xff, 0xff, 0xff]);
    expect(() => decodeConsumerAssignment(huge)).toThrow(/needs/);
    expect(() => decodeConsumerAssignment(Buffer.from([0xff, 0xff, 0, 0, 0, 0]))).toThrow(/version -1/);
  });
});
