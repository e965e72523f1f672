import { lookup } from "node:dns/promises";
import {
  classifyAddress,
  isIpLiteral,
  type PrivateTargetAllowList,
  parseAllowList,
  stripBrackets,
} from "./address-policy.ts";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a hostname resolves to. Injectable so tests can point a name anywhere. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/** Why a webhook target was refused; `code` lets callers tell it apart from network errors. */
export class BlockedTargetError extends Error {
  readonly code = "ERR_WEBHOOK_TARGET_BLOCKED";
  /**
   * @param reason the full reason, for the operator's logs
   * @param callerReason what an API caller may read: the same words whether a name does not
   *   resolve or resolves to a private address (else any key could map internal host names)
   * @param hostNotPublic the URL's host (a name or an address typed as one), when that is why:
   *   refused for not resolving, or not being, a public address (the app words this case for a person)
   */
  constructor(
    readonly reason: string,
    readonly callerReason: string = reason,
    readonly hostNotPublic?: string,
  ) {
    super(reason);
    this.name = "BlockedTargetError";
  }
}

export interface TargetGuard {
  /** Parses and checks a URL (scheme, credentials, literal address). Throws BlockedTargetError. */
  checkUrl(raw: string): URL;
  /** Resolves a hostname and checks every answer; returns them all. Throws BlockedTargetError. */
  resolveAllowed(hostname: string): Promise<ResolvedAddress[]>;
  readonly allowList: PrivateTargetAllowList;
}

/** A space, a C0 control character or DEL. */
function hasControlOrSpace(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function createTargetGuard(options: {
  resolver?: HostResolver;
  allowPrivateTargets?: readonly string[];
}): TargetGuard {
  const resolver = options.resolver ?? systemResolver;
  const allowList = parseAllowList(options.allowPrivateTargets ?? []);

  const assertAddressAllowed = (hostname: string, address: string) => {
    if (allowList.allowsHost(hostname) || allowList.allowsAddress(address)) return;
    const verdict = classifyAddress(address);
    if (verdict.allowed) return;
    const reason = `target address is not public: ${verdict.reason}`;
    throw new BlockedTargetError(reason, reason, hostname);
  };

  const checkUrl = (raw: string): URL => {
    // The URL parser drops tabs and newlines anywhere: "https://h/a\nb" would be stored as
    // https://h/ab, a URL the caller never sent. Around the URL (a pasted newline) they are trimmed.
    if (hasControlOrSpace(raw.trim())) {
      throw new BlockedTargetError("target_url must not contain spaces or control characters");
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new BlockedTargetError("target_url is not a valid URL");
    }
    if (url.protocol !== "https:") throw new BlockedTargetError("target_url must use https");
    if (url.username || url.password) throw new BlockedTargetError("target_url must not carry credentials");
    if (!url.hostname) throw new BlockedTargetError("target_url has no host");
    if (url.port === "0") throw new BlockedTargetError("target_url port 0 cannot be connected to");
    if (isIpLiteral(url.hostname)) assertAddressAllowed(url.hostname, stripBrackets(url.hostname));
    return url;
  };

  const resolveAllowed = async (hostname: string): Promise<ResolvedAddress[]> => {
    if (isIpLiteral(hostname)) {
      const address = stripBrackets(hostname);
      assertAddressAllowed(hostname, address);
      return [{ address, family: address.includes(":") ? 6 : 4 }];
    }
    // A caller reads one reason for a name that does not resolve and for one that resolves to a
    // private address: telling them apart would let any key probe which internal names exist.
    const callerReason = `target host ${hostname} does not resolve to a public address`;
    let answers: ResolvedAddress[];
    try {
      answers = await resolver(hostname);
    } catch {
      throw new BlockedTargetError(`target host ${hostname} does not resolve`, callerReason, hostname);
    }
    if (answers.length === 0) {
      throw new BlockedTargetError(`target host ${hostname} does not resolve`, callerReason, hostname);
    }
    // Every answer, not the first: a name with one public and one private address is refused.
    for (const answer of answers) {
      try {
        assertAddressAllowed(hostname, answer.address);
      } catch (error) {
        throw new BlockedTargetError((error as BlockedTargetError).reason, callerReason, hostname);
      }
    }
    return answers;
  };

  return {
    allowList,
    checkUrl,
    resolveAllowed,
  };
}
