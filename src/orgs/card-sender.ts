import type { Queryable } from "../db/database.ts";
import type { CardLogo } from "../render/card-layout.ts";
import type { CardSender } from "../render/compose.ts";
import { displayName } from "./display-name.ts";
import {
  findOrganizationLogo,
  getOrganizationProfile,
  type OrganizationProfile,
} from "./organization-profile.ts";

/**
 * Who a card and a landing page speak for: the organization's profile (app Settings) as the card
 * back, the merge fields and the landing page print it. Read once per card (one small query); the
 * logo's bytes are read and shrunk once per organization and logo version, then kept in memory.
 */

/** The logo as printed: at most this many pixels wide/high (≥ 300 dpi for its ~1.3 × 0.55 in box). */
const LOGO_PRINT_WIDTH = 420;
const LOGO_PRINT_HEIGHT = 180;
/** Organizations whose printed logo is kept; each entry is a few tens of kilobytes. */
const LOGO_CACHE_ENTRIES = 64;
const logoCache = new Map<string, Promise<CardLogo | undefined>>();

export function senderOf(profile: OrganizationProfile, logo: CardLogo | undefined): CardSender {
  const address = profile.return_address;
  const locality = address
    ? [address.city, [address.state, address.postal_code].filter(Boolean).join(" ")]
        .filter(Boolean)
        .join(", ")
    : "";
  return {
    name: displayName(profile),
    phone: profile.phone,
    website: profile.website,
    returnAddressLines: address ? [address.street, ...(locality ? [locality] : [])] : [],
    offer: profile.offer,
    brandColor: profile.brand_color,
    ...(logo ? { logo } : {}),
  };
}

export async function loadCardSender(db: Queryable, orgId: string): Promise<CardSender> {
  const profile = await getOrganizationProfile(db, orgId);
  const logo = profile.has_logo ? await printedLogo(db, orgId, profile.logo_updated_at ?? "") : undefined;
  return senderOf(profile, logo);
}

function printedLogo(db: Queryable, orgId: string, version: string): Promise<CardLogo | undefined> {
  const key = `${orgId}:${version}`;
  const cached = logoCache.get(key);
  if (cached) {
    // Most recently used last: the oldest entry is the one dropped.
    logoCache.delete(key);
    logoCache.set(key, cached);
    return cached;
  }
  const loading = loadPrintedLogo(db, orgId);
  logoCache.set(key, loading);
  loading.catch(() => logoCache.delete(key));
  if (logoCache.size > LOGO_CACHE_ENTRIES) logoCache.delete(logoCache.keys().next().value!);
  return loading;
}

async function loadPrintedLogo(db: Queryable, orgId: string): Promise<CardLogo | undefined> {
  const stored = await findOrganizationLogo(db, orgId);
  if (!stored) return undefined;
  const { default: sharp } = await import("sharp");
  const { data, info } = await sharp(stored)
    .resize({ width: LOGO_PRINT_WIDTH, height: LOGO_PRINT_HEIGHT, fit: "inside", withoutEnlargement: true })
    .png({ compressionLevel: 9 })
    .toBuffer({ resolveWithObject: true });
  return { png: new Uint8Array(data), width: info.width, height: info.height };
}
