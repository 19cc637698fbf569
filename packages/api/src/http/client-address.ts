import { BlockList, isIP } from "node:net";
import { normalizeIP } from "@better-auth/core/utils/ip";

/**
 * Which address a request comes from, for every limit keyed on it (auth/auth-rate-limit.ts).
 * The TCP peer is the truth; `X-Forwarded-For` is text any client can write, so it is read only
 * when the peer is a proxy the operator named (`TRUST_PROXY`, a CIDR list, off by default), and
 * then only as far as that chain of trusted proxies goes: walking the header from the right, the
 * first address that is not a trusted proxy is the client (what nginx's real_ip and Express's
 * `trust proxy` do). IPv6 clients are keyed by their /64, which one subscriber usually holds whole.
 */
export interface TrustedProxies {
  /** The entries as given, normalized (for messages). */
  readonly entries: readonly string[];
  contains(address: string): boolean;
}

export const NO_TRUSTED_PROXIES: TrustedProxies = { entries: [], contains: () => false };

/** The key of requests whose peer is not known (an in-process call, or a server started without its peer stamp). */
export const UNKNOWN_PEER = "unknown-peer";

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4) as IPv4. */
function plainAddress(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? mapped[1]! : trimmed;
}

/**
 * `TRUST_PROXY`: unset, empty or `off` trusts nobody; otherwise a comma-separated list of
 * addresses and CIDR ranges (`10.0.0.0/8, 127.0.0.1, fd00::/8`). A malformed entry is an error
 * naming it, so a typo never silently trusts nobody (or everybody).
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const text = value?.trim() ?? "";
  if (text === "" || text.toLowerCase() === "off") return NO_TRUSTED_PROXIES;
  const list = new BlockList();
  const entries: string[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    const [address = "", prefix, extra] = entry.split("/");
    const family = isIP(plainAddress(address));
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    const valid =
      family !== 0 &&
      extra === undefined &&
      (prefix === undefined || /^\d{1,3}$/.test(prefix)) &&
      bits <= (family === 6 ? 128 : 32);
    if (!valid) {
      throw new Error(
        `TRUST_PROXY entry "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, fd00::/8), or "off".`,
      );
    }
    list.addSubnet(plainAddress(address), bits, family === 6 ? "ipv6" : "ipv4");
    entries.push(`${plainAddress(address)}/${bits}`);
  }
  return {
    entries,
    contains(address: string) {
      const plain = plainAddress(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client address of a request that arrived from `peer` with this `X-Forwarded-For` value:
 * the peer itself unless it is a trusted proxy; then the right-most forwarded address that is not
 * a trusted proxy (a malformed one ends the walk at the last trusted hop, which is then the client).
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | null,
  trusted: TrustedProxies,
): string {
  if (peer === undefined || isIP(plainAddress(peer)) === 0) return UNKNOWN_PEER;
  let client = plainAddress(peer);
  if (trusted.contains(client) && forwardedFor) {
    const hops = forwardedFor.split(",").map(plainAddress).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) break;
      client = hop;
      if (!trusted.contains(hop)) break;
    }
  }
  return normalizeIP(client, { ipv6Subnet: 64 });
}
