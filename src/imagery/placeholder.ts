import type { HomeImage, HomeImagery, HomeLocation } from "./home-imagery.ts";

const WIDTH = 1200;
const HEIGHT = 864;
/** The house sits high: the card's headline band covers the bottom third of the picture. */
const LIFT = 90;

/**
 * The scene's size and where its sign stands, for the renderer that letters the street on it
 * (render/placeholder-sign.ts).
 */
export const PLACEHOLDER_SCENE = {
  width: WIDTH,
  height: HEIGHT,
  sign: { x: 600, top: 250 - LIFT, width: 560, fontSize: 44, lineHeight: 52 },
} as const;

/**
 * A clean illustration drawn locally: sky, lawn, a house and a sign post. It needs no network and
 * no key, so a card always has a picture. The scene is the same for every card (it is fitted to a
 * card size once and cached); the street on the sign is drawn over it by `placeholderSignOps` (render/placeholder-sign.ts).
 */
const SCENE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#8ec5e8"/><stop offset="1" stop-color="#dff1fb"/>
    </linearGradient>
  </defs>
  <rect width="${WIDTH}" height="${HEIGHT}" fill="url(#sky)"/>
  <circle cx="1040" cy="130" r="62" fill="#ffe08a"/>
  <ellipse cx="300" cy="150" rx="120" ry="34" fill="#ffffff" opacity="0.85"/>
  <ellipse cx="620" cy="105" rx="90" ry="26" fill="#ffffff" opacity="0.7"/>
  <g transform="translate(0 -${LIFT})">
  <rect y="600" width="${WIDTH}" height="264" fill="#7cb868"/>
  <rect y="600" width="${WIDTH}" height="18" fill="#6aa457"/>
  <rect x="170" y="360" width="460" height="260" fill="#f3ece1"/>
  <path d="M130 372 L400 190 L670 372 Z" fill="#a2493a"/>
  <rect x="520" y="220" width="46" height="100" fill="#8c3d31"/>
  <rect x="370" y="470" width="70" height="150" fill="#5b4636"/>
  <circle cx="428" cy="548" r="5" fill="#e9c46a"/>
  <!-- a doorstep, not a walkway: the card's headline band covers the lawn below the house, and a
       light walkway showed through its translucent dark as a grey wedge under the headline -->
  <rect x="356" y="618" width="98" height="12" rx="3" fill="#d9cbb3"/>
  <rect x="215" y="420" width="100" height="84" fill="#bfe0f2" stroke="#ffffff" stroke-width="8"/>
  <rect x="490" y="420" width="100" height="84" fill="#bfe0f2" stroke="#ffffff" stroke-width="8"/>
  <line x1="265" y1="420" x2="265" y2="504" stroke="#ffffff" stroke-width="5"/>
  <line x1="540" y1="420" x2="540" y2="504" stroke="#ffffff" stroke-width="5"/>
  <ellipse cx="150" cy="610" rx="70" ry="40" fill="#4f8f45"/>
  <ellipse cx="660" cy="612" rx="60" ry="36" fill="#4f8f45"/>
  <!-- the sign's post: the sign (drawn over the scene, one or two lines tall) always covers its top -->
  <rect x="873" y="${250 + 60}" width="14" height="${600 - 250 - 60 + 20}" fill="#6b5b4b"/>
  </g>
  <rect y="${HEIGHT - LIFT}" width="${WIDTH}" height="${LIFT}" fill="#7cb868"/>
</svg>`;
const SCENE_BYTES = Buffer.from(SCENE_SVG);

/** The street the sign shows: the record's street, else the address's first part. */
export function streetOf(location: HomeLocation): string {
  return location.street?.trim() || location.address.split(",")[0]?.trim() || "Your home";
}

/** The placeholder picture of a location: the shared scene, and the street its sign carries. */
export function placeholderImage(location: HomeLocation): HomeImage {
  return { source: "placeholder", bytes: SCENE_BYTES, streetSign: streetOf(location) };
}

/** The placeholder's picture differs by the street on its sign only. */
export const placeholderPictureKey = (location: HomeLocation) => `placeholder:${streetOf(location)}`;

export function createPlaceholderImagery(): HomeImagery {
  return {
    name: "placeholder",
    pictureKey: placeholderPictureKey,
    fetchImage: async (location) => placeholderImage(location),
  };
}
