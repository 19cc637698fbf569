import { describe, expect, it } from "vitest";
import { PLAIN_MAX_BYTES, parsePlain, SaslError } from "../src/index";

const plain = (...parts: string[]) => Buffer.from(parts.join("\0"));

describe("SASL PLAIN (RFC 4616)", () => {
  it("1. kafkajs's message (empty authzid) and one whose authzid is the user name are read", () => {
    expect(parsePlain(plain("", "key-id", "secret"))).toEqual({ username: "key-id", password: "secret" });
    expect(parsePlain(plain("key-id", "key-id", "se\u00e7ret"))).toEqual({
      username: "key-id",
      password: "se\u00e7ret",
    });
  });

  it("2. an authzid that is another user is refused, as Kafka and kfake do", () => {
    expect(() => parsePlain(plain("admin", "key-id", "secret"))).toThrow(/authorization id/);
  });

  it("3. missing or extra separators, empty names or secrets and oversized messages are refused", () => {
    for (const bad of [
      Buffer.from("key-id secret"),
      plain("", "key-id"),
      plain("", "a", "b", "c"),
      plain("", "", "x"),
      plain("", "x", ""),
    ]) {
      expect(() => parsePlain(bad)).toThrow(SaslError);
    }
    expect(() => parsePlain(Buffer.alloc(PLAIN_MAX_BYTES + 1, 0x61))).toThrow(/too long/);
  });
});
