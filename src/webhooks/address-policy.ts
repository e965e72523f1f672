import ipaddr from "ipaddr.js";

/**
 * Which network addresses a webhook may reach. Only globally routable unicast addresses pass;
 * IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, translated) are judged by the
 * IPv4 address they carry, so `::ffff:127.0.0.1` or `64:ff9b::a00:1` cannot smuggle a private
 * target past the check.
 */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const PUBLIC: AddressVerdict = { allowed: true };
const blocked = (reason: string): AddressVerdict => ({ allowed: false, reason });

/**
 * ipaddr.js's range names in words, with their article: the reason reaches the subscriber's 400
 * detail, which said "is a carrierGradeNat address" and "is a unspecified address".
 */
const RANGE_WORDS: Record<string, string> = {
  unspecified: "an unspecified",
  broadcast: "a broadcast",
  multicast: "a multicast",
  linkLocal: "a link-local",
  loopback: "a loopback",
  carrierGradeNat: "a carrier-grade NAT (CGNAT)",
  private: "a private",
  reserved: "a reserved",
  benchmarking: "a benchmarking",
  as112: "an AS112",
  as112v6: "an AS112",
  amt: "an AMT relay",
  uniqueLocal: "a unique local (ULA)",
  deprecatedSiteLocal: "a deprecated site-local",
  discard: "a discard-only",
  teredo: "a Teredo",
  deprecatedOrchid: "a deprecated ORCHID",
  orchid2: "an ORCHIDv2",
  droneRemoteIdProtocolEntityTags: "a drone remote ID (DRIP)",
  segmentRouting: "a segment routing (SRv6)",
};

const inRange = (address: ipaddr.IPv4 | ipaddr.IPv6, range: string) =>
  blocked(`${address.toString()} is ${RANGE_WORDS[range] ?? `a non-public (${range})`} address`);

export function classifyAddress(address: string): AddressVerdict {
  const literal = canonicalLiteral(stripBrackets(address));
  if (!ipaddr.isValid(literal)) return blocked(`"${address}" is not an IP address`);
  const parsed = ipaddr.parse(literal);
  return parsed.kind() === "ipv4" ? classifyIPv4(parsed as ipaddr.IPv4) : classifyIPv6(parsed as ipaddr.IPv6);
}

function classifyIPv4(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  // Everything ipaddr.js does not call plain unicast (private, loopback, link-local incl.
  // 169.254.169.254, CGNAT, multicast, broadcast, unspecified, documentation, benchmarking…).
  if (range !== "unicast") return inRange(address, range);
  return PUBLIC;
}

function classifyIPv6(address: ipaddr.IPv6): AddressVerdict {
  const parts = address.parts;
  // ::/96, the deprecated IPv4-compatible form (and :: and ::1); ipaddr.js calls ::7f00:1 unicast.
  if (parts.slice(0, 6).every((part) => part === 0)) {
    return blocked(`${address.toString()} is an IPv4-compatible, loopback or unspecified address`);
  }
  const range = address.range();
  switch (range) {
    case "unicast":
      return PUBLIC;
    case "ipv4Mapped":
    case "rfc6145":
      return embedded(address, ipv4FromWords(parts[6]!, parts[7]!));
    case "rfc6052":
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; the local-use 64:ff9b:1::/48
      // is a private translator by definition.
      if (parts[2] !== 0) return blocked(`${address.toString()} is a local-use NAT64 address`);
      return embedded(address, ipv4FromWords(parts[6]!, parts[7]!));
    case "6to4":
      return embedded(address, ipv4FromWords(parts[1]!, parts[2]!));
    default:
      return inRange(address, range);
  }
}

function embedded(outer: ipaddr.IPv6, inner: ipaddr.IPv4): AddressVerdict {
  const verdict = classifyIPv4(inner);
  if (verdict.allowed) return verdict;
  return blocked(`${outer.toString()} embeds ${inner.toString()}, which is not public`);
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * IPv6 with a dotted tail in the WHATWG/kernel hex form: ipaddr.js reads "::8.8.8.8" as
 * "::ffff:8.8.8.8", while a socket connects to ::808:808 (the IPv4-compatible form).
 */
function canonicalLiteral(literal: string): string {
  if (!literal.includes(":") || !literal.includes(".")) return literal;
  try {
    return stripBrackets(new URL(`http://[${literal}]/`).hostname);
  } catch {
    return literal;
  }
}

export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

/**
 * WEBHOOK_ALLOW_PRIVATE_TARGETS: hostnames (any address they resolve to is accepted) and
 * addresses or CIDRs (those addresses are accepted whatever the name). TLS stays verified.
 */
export interface PrivateTargetAllowList {
  allowsHost(hostname: string): boolean;
  allowsAddress(address: string): boolean;
  readonly empty: boolean;
}

export function parseAllowList(entries: readonly string[]): PrivateTargetAllowList {
  const hosts = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes("/")) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(stripBrackets(entry))) {
      const address = ipaddr.parse(stripBrackets(entry));
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else hosts.add(entry.replace(/\.$/, ""));
  }
  return {
    empty: hosts.size === 0 && ranges.length === 0,
    allowsHost: (hostname) => hosts.has(stripBrackets(hostname).toLowerCase().replace(/\.$/, "")),
    allowsAddress: (address) => {
      const literal = stripBrackets(address);
      if (!ipaddr.isValid(literal)) return false;
      const parsed = ipaddr.process(literal);
      return ranges.some(
        ([network, bits]) => network.kind() === parsed.kind() && parsed.match([network, bits] as never),
      );
    },
  };
}
