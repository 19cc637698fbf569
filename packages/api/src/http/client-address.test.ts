import { describe, expect, it } from "vitest";
import { clientAddress, NO_TRUSTED_PROXIES, parseTrustedProxies, UNKNOWN_PEER } from "./client-address";

describe("parseTrustedProxies", () => {
  it("trusts nobody when unset, empty or off", () => {
    for (const value of [undefined, "", " ", "off", "OFF"]) {
      expect(parseTrustedProxies(value).entries, String(value)).toEqual([]);
    }
  });

  it("reads addresses and CIDR ranges of both families, IPv4-mapped peers included", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 127.0.0.1 ,fd00::/8");
    expect(trusted.entries).toEqual(["10.0.0.0/8", "127.0.0.1/32", "fd00::/8"]);
    expect(trusted.contains("10.200.3.4")).toBe(true);
    expect(trusted.contains("::ffff:10.200.3.4")).toBe(true);
    expect(trusted.contains("127.0.0.1")).toBe(true);
    expect(trusted.contains("127.0.0.2")).toBe(false);
    expect(trusted.contains("fd12::1")).toBe(true);
    expect(trusted.contains("2001:db8::1")).toBe(false);
    expect(trusted.contains("not-an-address")).toBe(false);
  });

  it.each(["10.0.0.0/33", "10.0.0/8", "proxy.internal", "10.0.0.0/8/1", "fd00::/129", "10.0.0.0/x", "*"])(
    "refuses %j, naming it",
    (entry) => {
      expect(() => parseTrustedProxies(`127.0.0.1, ${entry}`)).toThrow(`TRUST_PROXY entry "${entry}"`);
    },
  );
});

describe("clientAddress", () => {
  const proxies = parseTrustedProxies("10.0.0.0/8");

  it("is the peer whatever X-Forwarded-For says, when no proxy is trusted", () => {
    expect(clientAddress("203.0.113.7", "198.51.100.1", NO_TRUSTED_PROXIES)).toBe("203.0.113.7");
    expect(clientAddress("::ffff:203.0.113.7", "1.2.3.4, 5.6.7.8", NO_TRUSTED_PROXIES)).toBe("203.0.113.7");
  });

  it("is the peer when the peer is not a trusted proxy, whatever it forwards", () => {
    expect(clientAddress("203.0.113.7", "10.1.1.1", proxies)).toBe("203.0.113.7");
  });

  it("behind trusted proxies, is the right-most forwarded address that is not one of them", () => {
    // A client's own X-Forwarded-For comes first; the proxies append what they saw.
    expect(clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.1, 10.0.0.9", proxies)).toBe("198.51.100.1");
    expect(clientAddress("10.0.0.2", "198.51.100.1", proxies)).toBe("198.51.100.1");
    // Only proxies in the chain: the farthest one is the client.
    expect(clientAddress("10.0.0.2", "10.0.0.3", proxies)).toBe("10.0.0.3");
    // Nothing forwarded: the proxy itself.
    expect(clientAddress("10.0.0.2", null, proxies)).toBe("10.0.0.2");
  });

  it("stops at a malformed hop: the last trusted address before it is the client", () => {
    expect(clientAddress("10.0.0.2", "198.51.100.1, garbage, 10.0.0.9", proxies)).toBe("10.0.0.9");
  });

  it("keys IPv6 clients by their /64, and an unknown peer as one shared client", () => {
    expect(clientAddress("2001:db8:1:2:aaaa::1", null, NO_TRUSTED_PROXIES)).toBe(
      clientAddress("2001:db8:1:2:bbbb::2", null, NO_TRUSTED_PROXIES),
    );
    expect(clientAddress("2001:db8:1:3::1", null, NO_TRUSTED_PROXIES)).not.toBe(
      clientAddress("2001:db8:1:2::1", null, NO_TRUSTED_PROXIES),
    );
    expect(clientAddress(undefined, "198.51.100.1", proxies)).toBe(UNKNOWN_PEER);
    expect(clientAddress("bogus", "198.51.100.1", proxies)).toBe(UNKNOWN_PEER);
  });
});
