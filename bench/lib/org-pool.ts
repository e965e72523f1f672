import { type BenchOrg, bindAutomation, createOrg, inBatches } from "./api-client.ts";

/** Requests sent per org per window; under the 120/min events limit with room for edge effects. */
const PER_ORG_PER_WINDOW = 100;

/**
 * Spreads requests over enough organizations that no per-org limit trips. Windows are fixed
 * minutes (as on the server), so each org's count restarts at every minute boundary.
 */
export class OrgPool {
  private readonly orgs: BenchOrg[] = [];
  private counts: number[] = [];
  private window = currentWindow();
  private cursor = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly eventType: string | undefined,
  ) {}

  get size() {
    return this.orgs.length;
  }

  /** Makes sure `requests` more can be sent in this window without reusing a full org. */
  async ensureCapacity(requests: number): Promise<void> {
    this.rollWindow();
    const remaining = this.counts.reduce((sum, count) => sum + Math.max(0, PER_ORG_PER_WINDOW - count), 0);
    const missing = Math.ceil(Math.max(0, requests - remaining) / PER_ORG_PER_WINDOW);
    if (missing <= 0) return;
    const created = await inBatches(missing, 6, async (index) => {
      const org = await createOrg(this.baseUrl, `Bench ${this.orgs.length + index}`);
      if (this.eventType) await bindAutomation(this.baseUrl, org.orgId, this.eventType);
      return org;
    });
    this.orgs.push(...created);
    this.counts.push(...created.map(() => 0));
  }

  next(): BenchOrg {
    this.rollWindow();
    // Skip orgs already at their share of this window (if every org is full, one takes it anyway).
    for (let step = 0; step < this.orgs.length && this.counts[this.cursor]! >= PER_ORG_PER_WINDOW; step++) {
      this.cursor = (this.cursor + 1) % this.orgs.length;
    }
    this.counts[this.cursor]! += 1;
    return this.orgs[this.cursor]!;
  }

  private rollWindow() {
    const window = currentWindow();
    if (window === this.window) return;
    this.window = window;
    this.counts = this.counts.map(() => 0);
    this.cursor = 0;
  }
}

const currentWindow = () => Math.floor(Date.now() / 60_000);

/**
 * A client address from a rotating set of 65 536, so the per-IP limit (60 per minute, via
 * X-Forwarded-For) never trips below about 65 000 req/s.
 */
export function rotatingIp(): () => string {
  let counter = 0;
  return () => {
    counter = (counter + 1) % 65_536;
    return `10.77.${counter >> 8}.${counter & 255}`;
  };
}
