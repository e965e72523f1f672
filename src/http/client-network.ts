import ipaddr from "ipaddr.js";

/**
 * The client a per-IP limit counts: an IPv4 address itself; an IPv6 one by its /64, since one host
 * is given a whole /64 and may rotate through its addresses (an IPv4-mapped address is its IPv4).
 */
export function clientNetwork(ip: string): string {
  // The common case, read without parsing: an IPv4 address has no colon.
  if (!ip.includes(":") || !ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === "ipv4") return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}
