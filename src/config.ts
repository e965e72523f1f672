import { isIP, isIPv4 } from "node:net";
import { availableParallelism } from "node:os";
import path from "node:path";
import ipaddr from "ipaddr.js";

/** Everything the process reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  /**
   * Where the operator API listens on its own (ADMIN_PORT, ADMIN_HOST); undefined: on the public
   * port with everything else.
   */
  adminListener: { host: string; port: number } | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  publicBaseUrl: string;
  /** Raster map tiles for the app's maps, `{z}/{x}/{y}` template (MAP_TILE_URL); none: an offline drawing. */
  mapTileUrl?: string | undefined;
  /** The tiles' credit line (MAP_TILE_ATTRIBUTION), e.g. "© OpenStreetMap contributors". */
  mapTileAttribution?: string | undefined;
  trustProxy: boolean | string | number;
  ipRateLimitPerMinute: number;
  /**
   * Milliseconds of CPU an organization may spend per minute reading the addresses of customer
   * batches, per process (ADDRESS_WORK_MS_PER_MINUTE; two minutes' may be saved): the spec's 60
   * batches of 1000 ordinary addresses fit; hostile text, a hundred times costlier to read, is
   * refused (429) past it.
   */
  addressWorkMsPerMinute: number;
  /**
   * A request whose headers and body have not fully arrived within this many ms is answered 408
   * and its connection closed (REQUEST_TIMEOUT_MS): a client trickling bytes cannot hold a socket.
   */
  requestTimeoutMs: number;
  /** How long SIGTERM/SIGINT wait for requests and jobs in flight before exiting anyway (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /**
   * On SIGTERM/SIGINT, how long /readyz answers 503 while requests are still served, before new
   * ones are refused (SHUTDOWN_DRAIN_MS; 0: refuse at once). Counted within SHUTDOWN_TIMEOUT_MS.
   */
  shutdownDrainMs: number;
  /** How long a start waits for an unreachable PostgreSQL before giving up (DATABASE_STARTUP_WAIT_MS; 0: not at all). */
  databaseStartupWaitMs: number;
  logLevel: string;
  geocoder: "local" | "nominatim" | "census";
  geocoderUrl: string | undefined;
  /** Requests in flight toward a remote geocoder (GEOCODER_CONCURRENCY). */
  geocoderConcurrency: number;
  /** A remote geocoder answer slower than this is "unavailable" (GEOCODER_TIMEOUT_MS). */
  geocoderTimeoutMs: number;
  /** Geo attribution: both points within this many meters (ATTRIBUTION_GEO_RADIUS_METERS). */
  attributionGeoRadiusMeters: number;
  webhookAllowPrivateTargets: string[];
  /** A landing page is not found this many days after its piece was mailed (LANDING_PAGE_TTL_DAYS). */
  landingPageTtlDays: number;
  /** New leads one landing page may capture in any hour (LANDING_LEADS_PER_TOKEN_PER_HOUR). */
  landingLeadsPerTokenPerHour: number;
  /** Where the front of a postcard gets the home's picture (HOME_IMAGERY). */
  homeImagery: "placeholder" | "streetview" | "mapbox";
  googleMapsApiKey: string | undefined;
  /** Street View Static API base (GOOGLE_STREETVIEW_URL); tests point it at a loopback fake. */
  streetViewBaseUrl: string;
  mapboxToken: string | undefined;
  /** Mapbox Static Images API base (MAPBOX_BASE_URL). */
  mapboxBaseUrl: string;
  /** Who prints and mails a piece (PRINT_PROVIDER). */
  printProvider: "local" | "lob";
  lobApiKey: string | undefined;
  lobBaseUrl: string;
  /** Who checks a card's address before print (ADDRESS_VERIFIER): offline checks, or Lob's US verification. */
  addressVerifier: "offline" | "lob";
  /** Verifies Lob's tracking webhooks (LOB_WEBHOOK_SECRET); without it the route answers 503. */
  lobWebhookSecret: string | undefined;
  /** Threads that draw cards, off the event loop (RENDER_CONCURRENCY; default: cores − 1, at least 1). */
  renderConcurrency: number;
  /** Log the event loop's delay (p50, p99, max) every this many ms (EVENT_LOOP_REPORT_MS; 0: off). */
  eventLoopReportMs: number;
  /** The embedded database runs on a thread of its own (PGLITE_THREAD=on, default) or on the event loop (off). */
  pgliteThread: boolean;
  /**
   * The embedded database flushes each commit to disk before it is acknowledged (EMBEDDED_SYNC=on,
   * default); off, a commit survives a killed process but not an OS crash or a power loss.
   */
  embeddedSync: boolean;
  /** Hours between scheduled backups of the embedded database (BACKUP_INTERVAL_HOURS; 0: none). */
  backupIntervalHours: number;
  /** Backups kept under DATA_DIR/backups/; older ones are deleted after each new one (BACKUP_KEEP). */
  backupKeep: number;
  /**
   * Largest OpenAddresses file the operator API takes as one upload, in bytes
   * (REFERENCE_UPLOAD_MAX_BYTES; the file is kept under DATA_DIR until it is loaded).
   */
  referenceUploadMaxBytes: number;
  /** `smtp://…`/`smtps://…`: the app's email goes out by SMTP; unset, to DATA_DIR/mail-outbox/ (SMTP_URL). */
  smtpUrl: string | undefined;
  /** The From of the app's email (MAIL_FROM). */
  mailFrom: string;
  /** Signs the app's session cookies (AUTH_SECRET, ≥ 32 random chars); unset, one generated and kept in the database. */
  authSecret: string | undefined;
  /** The operator's HubSpot app (HUBSPOT_*); undefined: HubSpot is not offered. */
  hubspot: HubSpotAppConfig | undefined;
}

/** The operator's HubSpot app: its OAuth client and the two HubSpot addresses (tests point them at a fake). */
export interface HubSpotAppConfig {
  clientId: string;
  /** Signs the token exchange and keys the webhooks' X-HubSpot-Signature-v3. */
  clientSecret: string;
  /** HUBSPOT_API_URL: token exchange, token info and the CRM API. */
  apiUrl: string;
  /** HUBSPOT_AUTH_URL: the page where an owner grants access. */
  authUrl: string;
}

/**
 * What a server process runs (`npm start -- --role …`): `all`, the default start, serves the API
 * and works the jobs; `api` and `worker` one of the two. Here, beside the environment's settings,
 * because infrastructure reads it too (db/application-name.ts names each connection after it).
 */
export const SERVER_ROLES = ["all", "api", "worker"] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];
export const isServerRole = (value: string | undefined): value is ServerRole =>
  (SERVER_ROLES as readonly (string | undefined)[]).includes(value);

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const GEOCODERS = ["local", "nominatim", "census"] as const;
const HOME_IMAGERY = ["placeholder", "streetview", "mapbox"] as const;
const PRINT_PROVIDERS = ["local", "lob"] as const;
const ADDRESS_VERIFIERS = ["offline", "lob"] as const;

/** The campaign pipeline's adapters and their credentials; a chosen adapter needs its key. */
function pipelineConfig(env: Env) {
  const homeImagery = oneOf(env, "HOME_IMAGERY", HOME_IMAGERY, "placeholder");
  const googleMapsApiKey = env.GOOGLE_MAPS_API_KEY || undefined;
  const mapboxToken = env.MAPBOX_TOKEN || undefined;
  if (homeImagery === "streetview" && !googleMapsApiKey) {
    throw new ConfigError("GOOGLE_MAPS_API_KEY", "is required when HOME_IMAGERY=streetview");
  }
  if (homeImagery === "mapbox" && !mapboxToken) {
    throw new ConfigError("MAPBOX_TOKEN", "is required when HOME_IMAGERY=mapbox");
  }
  const printProvider = oneOf(env, "PRINT_PROVIDER", PRINT_PROVIDERS, "local");
  const lobApiKey = env.LOB_API_KEY || undefined;
  if (printProvider === "lob" && !lobApiKey) {
    throw new ConfigError("LOB_API_KEY", "is required when PRINT_PROVIDER=lob");
  }
  const addressVerifier = oneOf(env, "ADDRESS_VERIFIER", ADDRESS_VERIFIERS, "offline");
  if (addressVerifier === "lob" && !lobApiKey) {
    throw new ConfigError("LOB_API_KEY", "is required when ADDRESS_VERIFIER=lob");
  }
  const base = (name: string, fallback: string) => baseUrl(env, name, fallback);
  return {
    homeImagery,
    googleMapsApiKey,
    streetViewBaseUrl: base("GOOGLE_STREETVIEW_URL", "https://maps.googleapis.com/maps/api/streetview"),
    mapboxToken,
    mapboxBaseUrl: base("MAPBOX_BASE_URL", "https://api.mapbox.com"),
    printProvider,
    lobApiKey,
    lobBaseUrl: base("LOB_BASE_URL", "https://api.lob.com/v1"),
    addressVerifier,
    lobWebhookSecret: env.LOB_WEBHOOK_SECRET || undefined,
  };
}

/** HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET come together; the two URLs have HubSpot's defaults. */
function hubspotConfig(env: Env): HubSpotAppConfig | undefined {
  const clientId = env.HUBSPOT_CLIENT_ID || undefined;
  const clientSecret = env.HUBSPOT_CLIENT_SECRET || undefined;
  if (clientId && !clientSecret) {
    throw new ConfigError("HUBSPOT_CLIENT_SECRET", "is required when HUBSPOT_CLIENT_ID is set");
  }
  if (clientSecret && !clientId) {
    throw new ConfigError("HUBSPOT_CLIENT_ID", "is required when HUBSPOT_CLIENT_SECRET is set");
  }
  const apiUrl = baseUrl(env, "HUBSPOT_API_URL", "https://api.hubapi.com");
  const authUrl = baseUrl(env, "HUBSPOT_AUTH_URL", "https://app.hubspot.com/oauth/authorize");
  return clientId && clientSecret ? { clientId, clientSecret, apiUrl, authUrl } : undefined;
}

/** An outside service's base URL (http or https), without trailing slashes. */
function baseUrl(env: Env, name: string, fallback: string): string {
  return (url(env, name, ["http:", "https:"]) ?? fallback).replace(/\/+$/, "");
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, "is not a valid URL");
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(", ")} (got ${parsed.protocol})`);
  }
  return raw;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

/** Host names as resolvers take them: letters, digits, hyphens, and underscores (Compose service names). */
const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

const isHostname = (value: string) => HOSTNAME.test(value) && (!/^[\d.]+$/.test(value) || isIPv4(value));
const unbracketed = (value: string) => value.replace(/^\[(.*)\]$/, "$1");
const isAddressOrCidr = (value: string) => ipaddr.isValid(value) || ipaddr.isValidCIDR(value);

/** An interface name or address to listen on, checked before anything is opened. */
function listenHost(raw: string | undefined, variable = "HOST"): string {
  const host = raw || "127.0.0.1";
  if (isIP(host) === 0 && !isHostname(host)) {
    throw new ConfigError(variable, `must be an IP address or a host name, got "${host}"`);
  }
  return host;
}

/** The operator listener: only with ADMIN_PORT, on another port than the public one; loopback unless ADMIN_HOST says. */
function adminListener(env: Env, publicPort: number): Config["adminListener"] {
  if (!env.ADMIN_PORT) {
    if (env.ADMIN_HOST) throw new ConfigError("ADMIN_HOST", "is set but ADMIN_PORT is not");
    return undefined;
  }
  const port = integer(env, "ADMIN_PORT", 0, 1, 65535);
  if (port === publicPort) throw new ConfigError("ADMIN_PORT", `must differ from PORT (both ${port})`);
  return { host: listenHost(env.ADMIN_HOST, "ADMIN_HOST"), port };
}

/** A listener's own address as a URL (an IPv6 host in brackets). */
export const listenerUrl = (listener: { host: string; port: number }) =>
  `http://${isIP(listener.host) === 6 ? `[${listener.host}]` : listener.host}:${listener.port}`;

/** The drain is part of the shutdown's time: one as long leaves nothing for requests in flight. */
function shutdownDrain(env: Env, shutdownTimeoutMs: number): number {
  const drainMs = integer(env, "SHUTDOWN_DRAIN_MS", 0, 0, 600_000);
  if (drainMs > 0 && drainMs >= shutdownTimeoutMs) {
    throw new ConfigError(
      "SHUTDOWN_DRAIN_MS",
      `must be less than SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}), got ${drainMs}`,
    );
  }
  return drainMs;
}

/** A comma list whose every entry passes `valid`; the first that does not is named. */
function list(env: Env, name: string, valid: (entry: string) => boolean, expected: string): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !valid(entry));
  if (wrong !== undefined) throw new ConfigError(name, `must list ${expected}, got "${wrong}"`);
  return entries;
}

const PROXY_KEYWORDS = ["loopback", "linklocal", "uniquelocal"];
/** An IPv4 address with a dotted netmask (10.0.0.0/255.0.0.0), as proxy-addr also takes them. */
const isIPv4WithNetmask = (entry: string) => {
  const [address, mask, extra] = entry.split("/");
  if (extra !== undefined || !isIPv4(address ?? "") || !isIPv4(mask ?? "")) return false;
  return ipaddr.IPv4.parse(mask!).prefixLengthFromSubnetMask() !== null;
};
/** proxy-addr's entries: its keywords, addresses (unbracketed), CIDRs, IPv4 with a netmask. */
const isProxyEntry = (entry: string) =>
  PROXY_KEYWORDS.includes(entry) || isAddressOrCidr(entry) || isIPv4WithNetmask(entry);

/** Fastify's trustProxy accepts a boolean, a hop count, or a list of addresses/CIDRs. */
function trustProxy(env: Env): boolean | string | number {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return list(env, "TRUST_PROXY", isProxyEntry, "true, false, a hop count, or addresses/CIDRs").join(",");
}

const isLocalHostname = (hostname: string) => {
  const name = unbracketed(hostname).replace(/\.$/, "").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  return ipaddr.isValid(name) && ["loopback", "unspecified"].includes(ipaddr.process(name).range());
};

/** Lob prints PUBLIC_BASE_URL in every card's QR code: unset or loopback, each card mailed would carry a dead one. */
function requireReachableBaseUrlForLob(env: Env): void {
  if (env.PRINT_PROVIDER !== "lob") return;
  const raw = env.PUBLIC_BASE_URL;
  if (raw && !isLocalHostname(new URL(raw).hostname)) return;
  throw new ConfigError(
    "PUBLIC_BASE_URL",
    `must be the public address recipients reach when PRINT_PROVIDER=lob (its QR codes link there), got ${raw ? `"${raw}"` : "none"}`,
  );
}

/**
 * A secret variable set but empty is a secret store that did not deliver (`ADMIN_TOKEN=${ADMIN_TOKEN}`
 * in a compose file): refused, where it started with a generated secret of the instance's own.
 */
function secretVariable(env: Env, name: "ADMIN_TOKEN" | "AUTH_SECRET"): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === "") {
    throw new ConfigError(
      name,
      "is set but empty: give the secret, or unset the variable to use a generated one",
    );
  }
  return value;
}

/** The length of the shortest run of characters the text repeats from its start ("1234567890" for "12345678901234…"). */
function repeatingPeriod(text: string): number {
  for (let period = 1; period < text.length; period++) {
    let repeats = true;
    for (let index = period; index < text.length && repeats; index++)
      repeats = text[index] === text[index - period];
    if (repeats) return period;
  }
  return text.length;
}

/** Operator tokens travel as `Bearer <token>`: no whitespace, and long enough not to be guessed. */
function adminToken(env: Env): string | undefined {
  const token = secretVariable(env, "ADMIN_TOKEN");
  if (token !== undefined && !/^\S{16,}$/.test(token)) {
    throw new ConfigError("ADMIN_TOKEN", "must be at least 16 characters, without spaces");
  }
  return token;
}

/**
 * Whoever knows the session secret can sign in as anyone: a set AUTH_SECRET must be long and not a
 * pattern (`aaaa…`, `1234…`). Unset, the app generates one (app-api/auth-secret.ts).
 */
function authSecret(env: Env): string | undefined {
  const secret = secretVariable(env, "AUTH_SECRET");
  if (secret === undefined) return undefined;
  if (secret.length < 32) throw new ConfigError("AUTH_SECRET", "must be at least 32 characters");
  // A short run repeated ("1234567890" three and a half times) has ten different characters and no secret.
  if (new Set(secret).size < 10 || repeatingPeriod(secret) <= 16) {
    throw new ConfigError(
      "AUTH_SECRET",
      "must be random (at least 10 different characters, not a short run repeated), e.g. the output of `openssl rand -base64 32`",
    );
  }
  return secret;
}

/** Where DATA_DIR is when the variable is unset, resolved against the working directory. */
export const DEFAULT_DATA_DIR = "./data";

/**
 * True when DATA_DIR is unset (or empty), so `dataDir` is the default: the one-shot tools
 * (db:restore, db:copy-to-postgres) say so, and refuse when that default folder is not there.
 */
export function dataDirIsDefault(env: Env = process.env): boolean {
  return !env.DATA_DIR;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, "PORT", 3000, 0, 65535);
  const host = listenHost(env.HOST);
  const geocoder = oneOf(env, "GEOCODER", GEOCODERS, "local");
  const geocoderUrl = url(env, "GEOCODER_URL", ["http:", "https:"]);
  if (geocoder === "nominatim" && !geocoderUrl) {
    throw new ConfigError("GEOCODER_URL", "is required when GEOCODER=nominatim");
  }
  const publicBaseUrl = url(env, "PUBLIC_BASE_URL", ["http:", "https:"]) ?? listenerUrl({ host, port });
  requireReachableBaseUrlForLob(env);
  const operatorListener = adminListener(env, port);
  const shutdownTimeoutMs = integer(env, "SHUTDOWN_TIMEOUT_MS", 25_000, 1_000, 600_000);
  return {
    port,
    host,
    adminListener: operatorListener,
    dataDir: path.resolve(env.DATA_DIR || DEFAULT_DATA_DIR),
    databaseUrl: url(env, "DATABASE_URL", ["postgres:", "postgresql:"]),
    redisUrl: url(env, "REDIS_URL", ["redis:", "rediss:"]),
    adminToken: adminToken(env),
    smtpUrl: url(env, "SMTP_URL", ["smtp:", "smtps:"]),
    mailFrom: env.MAIL_FROM || "Porchlight <no-reply@porchlight.invalid>",
    authSecret: authSecret(env),
    hubspot: hubspotConfig(env),
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ""),
    mapTileUrl: url(env, "MAP_TILE_URL", ["http:", "https:"]),
    mapTileAttribution: env.MAP_TILE_ATTRIBUTION || undefined,
    trustProxy: trustProxy(env),
    ipRateLimitPerMinute: integer(env, "IP_RATE_LIMIT_PER_MINUTE", 60, 1, 1_000_000),
    addressWorkMsPerMinute: integer(env, "ADDRESS_WORK_MS_PER_MINUTE", 30_000, 1, 3_600_000),
    requestTimeoutMs: integer(env, "REQUEST_TIMEOUT_MS", 30_000, 100, 600_000),
    shutdownTimeoutMs,
    shutdownDrainMs: shutdownDrain(env, shutdownTimeoutMs),
    databaseStartupWaitMs: integer(env, "DATABASE_STARTUP_WAIT_MS", 60_000, 0, 3_600_000),
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    geocoder,
    geocoderUrl,
    geocoderConcurrency: integer(env, "GEOCODER_CONCURRENCY", 8, 1, 64),
    geocoderTimeoutMs: integer(env, "GEOCODER_TIMEOUT_MS", 10_000, 100, 120_000),
    attributionGeoRadiusMeters: integer(env, "ATTRIBUTION_GEO_RADIUS_METERS", 30, 1, 1000),
    landingPageTtlDays: integer(env, "LANDING_PAGE_TTL_DAYS", 365, 1, 36_500),
    landingLeadsPerTokenPerHour: integer(env, "LANDING_LEADS_PER_TOKEN_PER_HOUR", 5, 1, 10_000),
    renderConcurrency: integer(env, "RENDER_CONCURRENCY", Math.max(1, availableParallelism() - 1), 1, 64),
    eventLoopReportMs: integer(env, "EVENT_LOOP_REPORT_MS", 0, 0, 3_600_000),
    pgliteThread: oneOf(env, "PGLITE_THREAD", ["on", "off"] as const, "on") === "on",
    embeddedSync: oneOf(env, "EMBEDDED_SYNC", ["on", "off"] as const, "on") === "on",
    backupIntervalHours: integer(env, "BACKUP_INTERVAL_HOURS", 24, 0, 8_760),
    backupKeep: integer(env, "BACKUP_KEEP", 7, 1, 1_000),
    referenceUploadMaxBytes: integer(env, "REFERENCE_UPLOAD_MAX_BYTES", 10 * 1024 ** 3, 1, 2 ** 50),
    webhookAllowPrivateTargets: list(
      env,
      "WEBHOOK_ALLOW_PRIVATE_TARGETS",
      (entry) => isAddressOrCidr(unbracketed(entry)) || isHostname(entry),
      "host names, addresses or CIDRs",
    ),
    ...pipelineConfig(env),
  };
}
