import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyAddress, parseAllowList } from "../../src/webhooks/address-policy.ts";
import { BlockedTargetError, createTargetGuard, type TargetGuard } from "../../src/webhooks/target-guard.ts";
import { fakeResolver } from "./leads-helpers.ts";

const NOT_PUBLIC: Record<string, string[]> = {
  loopback: ["127.0.0.1", "127.255.255.254", "::1"],
  private: ["10.0.0.1", "172.16.5.4", "192.168.1.10"],
  "link-local": ["169.254.10.10", "fe80::1"],
  "cloud metadata": ["169.254.169.254"],
  CGNAT: ["100.64.0.1", "100.127.255.254"],
  multicast: ["224.0.0.1", "239.255.255.250", "ff02::1"],
  unspecified: ["0.0.0.0", "0.1.2.3", "::"],
  broadcast: ["255.255.255.255"],
  documentation: ["192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1"],
  benchmarking: ["198.18.0.1"],
  "IPv6 unique local": ["fc00::1", "fd12:3456:789a::1"],
  "IPv4-mapped IPv6": ["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:7f00:1"],
  "NAT64 of private": ["64:ff9b::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1"],
  "IPv4-compatible ::/96": ["::127.0.0.1", "::7f00:1", "::a00:1", "::8.8.8.8"],
  "6to4 of private": ["2002:7f00:1::1", "2002:c0a8:101::1"],
  teredo: ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
};

const PUBLIC = [
  "93.184.216.34",
  "8.8.8.8",
  "1.1.1.1",
  "2606:4700:4700::1111",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
];

/** What subscribe checks at registration: the URL's form, then the addresses its host resolves to. */
async function registrationCheck(guard: TargetGuard, raw: string): Promise<URL> {
  const url = guard.checkUrl(raw);
  await guard.resolveAllowed(url.hostname);
  return url;
}

describe("webhook address policy", () => {
  for (const [label, addresses] of Object.entries(NOT_PUBLIC)) {
    it(`refuses ${label} addresses`, () => {
      for (const address of addresses) {
        assert.equal(classifyAddress(address).allowed, false, address);
      }
    });
  }

  it("accepts globally routable unicast addresses, including public ones in mapped or NAT64 form", () => {
    for (const address of PUBLIC) assert.equal(classifyAddress(address).allowed, true, address);
  });

  it("reads the allow-list as hosts, addresses and CIDRs", () => {
    const list = parseAllowList(["receiver.test", "127.0.0.1", "10.1.0.0/16", "fd00::/8"]);
    assert.equal(list.allowsHost("RECEIVER.test."), true);
    assert.equal(list.allowsHost("other.test"), false);
    assert.equal(list.allowsAddress("127.0.0.1"), true);
    assert.equal(list.allowsAddress("127.0.0.2"), false);
    assert.equal(list.allowsAddress("10.1.200.3"), true);
    assert.equal(list.allowsAddress("::ffff:10.1.200.3"), true);
    assert.equal(list.allowsAddress("fd12::1"), true);
    assert.equal(parseAllowList([]).empty, true);
  });
});

describe("webhook target guard (allow-list off)", () => {
  const resolver = fakeResolver({
    "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "loopback.example.com": ["127.0.0.1"],
    "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
    "metadata.example.com": ["169.254.169.254"],
    "mapped.example.com": ["::ffff:127.0.0.1"],
  });
  const guard = createTargetGuard({ resolver: resolver.resolve });

  const refused = async (url: string, pattern: RegExp) => {
    await assert.rejects(registrationCheck(guard, url), (error: unknown) => {
      assert.ok(error instanceof BlockedTargetError, String(error));
      assert.match(error.reason, pattern);
      return true;
    });
  };

  it("accepts a public https URL whose every address is public", async () => {
    const url = await registrationCheck(guard, "https://hooks.example.com/leads?x=1");
    assert.equal(url.href, "https://hooks.example.com/leads?x=1");
  });

  it("refuses http, other schemes, credentials and garbage", async () => {
    await refused("http://hooks.example.com/leads", /https/);
    await refused("ftp://hooks.example.com/leads", /https/);
    await refused("https://user:pass@hooks.example.com/", /credentials/);
    await refused("not a url", /spaces or control characters/);
    await refused("https://", /valid URL/);
  });

  it("refuses a hostname that resolves to loopback, metadata or a mapped loopback", async () => {
    await refused("https://loopback.example.com/", /127\.0\.0\.1/);
    await refused("https://metadata.example.com/", /169\.254\.169\.254/);
    await refused("https://mapped.example.com/", /not public/);
  });

  it("checks every address a name resolves to, not only the first", async () => {
    await refused("https://mixed.example.com/", /10\.0\.0\.5/);
  });

  it("refuses a name that does not resolve", async () => {
    await refused("https://nowhere.example.com/", /does not resolve/);
  });

  it("names the host when it is not, or does not resolve to, a public address, and only then", async () => {
    const hostOfRefusal = async (url: string) => {
      try {
        await registrationCheck(guard, url);
      } catch (error) {
        assert.ok(error instanceof BlockedTargetError, String(error));
        return error.hostNotPublic;
      }
      assert.fail(`${url} was accepted`);
    };
    assert.equal(await hostOfRefusal("https://nowhere.example.com/"), "nowhere.example.com");
    assert.equal(await hostOfRefusal("https://mixed.example.com/"), "mixed.example.com");
    assert.equal(await hostOfRefusal("http://hooks.example.com/"), undefined);
    assert.equal(await hostOfRefusal("https://127.0.0.1/"), "127.0.0.1");
    // The host as the URL parser reads it: a private address in another spelling, in the usual one.
    assert.equal(await hostOfRefusal("https://2130706433/"), "127.0.0.1");
  });

  it("checks IP literals in every spelling without resolving them", async () => {
    for (const url of [
      "https://127.0.0.1/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::7f00:1]/",
      "https://[64:ff9b::a9fe:a9fe]/",
      "https://169.254.169.254/latest/meta-data",
      "https://[fe80::1]/",
    ]) {
      await refused(url, /not public/);
    }
  });

  it("lets an allow-listed host or CIDR through, still https only", async () => {
    const permissive = createTargetGuard({
      resolver: resolver.resolve,
      allowPrivateTargets: ["loopback.example.com", "10.0.0.0/8"],
    });
    await registrationCheck(permissive, "https://loopback.example.com/");
    await registrationCheck(permissive, "https://mixed.example.com/");
    await registrationCheck(permissive, "https://10.2.3.4/");
    await assert.rejects(registrationCheck(permissive, "http://loopback.example.com/"), BlockedTargetError);
    await assert.rejects(registrationCheck(permissive, "https://192.168.0.1/"), BlockedTargetError);
  });
});
