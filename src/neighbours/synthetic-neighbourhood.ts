/**
 * A generated neighbourhood in OpenAddresses form, for tests, the demo and the bench (never a
 * download): east-west streets 100 m apart around the demo home (742 Evergreen Terrace,
 * Springfield, IL 62704, at the local geocoder's 62704 centroid), homes every 20 m along each
 * street, even numbers on the north side and odd on the south. The first street is Evergreen
 * Terrace numbered from 700, so the demo addresses 742 and 744 are on it. Streets fill 10 km
 * columns northwards, then the next column eastwards, so a million homes stay a grid of streets.
 */
import type { OpenAddressesRecord } from "./reference-addresses.ts";

export const DEMO_CENTRE = { latitude: 39.7725, longitude: -89.6889 };

const NAMED_STREETS = [
  "Evergreen Terrace",
  "Maple Avenue",
  "Oak Street",
  "Elm Street",
  "Pine Road",
  "Cedar Lane",
  "Birch Boulevard",
  "Walnut Drive",
  "Chestnut Court",
  "Willow Way",
  "Spruce Place",
  "Hickory Avenue",
];

const HOMES_PER_STREET = 200;
const HOME_SPACING_M = 20;
const STREET_SPACING_M = 100;
const STREETS_PER_COLUMN = 100;
const SIDE_OFFSET_M = 12;
const METRES_PER_DEGREE_LAT = 111_320;

export interface SyntheticHome extends OpenAddressesRecord {
  LON: string;
  LAT: string;
  NUMBER: string;
  STREET: string;
}

const streetName = (index: number) => NAMED_STREETS[index] ?? `${index} Street`;

/** Home `index` (0-based) of the generated neighbourhood; the same index always gives the same home. */
export function syntheticHome(index: number): SyntheticHome {
  const streetIndex = Math.floor(index / HOMES_PER_STREET);
  const onStreet = index % HOMES_PER_STREET;
  const column = Math.floor(streetIndex / STREETS_PER_COLUMN);
  const row = streetIndex % STREETS_PER_COLUMN;
  const northSide = onStreet % 2 === 0;
  // Evergreen Terrace sits on the centre; the grid spreads evenly north and south of it.
  const northM =
    (row % 2 === 0 ? row / 2 : -(row + 1) / 2) * STREET_SPACING_M +
    (northSide ? SIDE_OFFSET_M : -SIDE_OFFSET_M);
  const eastM = ((column * HOMES_PER_STREET) / 2 + Math.floor(onStreet / 2) - 21) * HOME_SPACING_M;
  const latitude = DEMO_CENTRE.latitude + northM / METRES_PER_DEGREE_LAT;
  const longitude =
    DEMO_CENTRE.longitude +
    eastM / (METRES_PER_DEGREE_LAT * Math.cos((DEMO_CENTRE.latitude * Math.PI) / 180));
  return {
    LON: longitude.toFixed(7),
    LAT: latitude.toFixed(7),
    NUMBER: String(700 + onStreet + column * HOMES_PER_STREET),
    STREET: streetName(streetIndex),
    UNIT: "",
    CITY: "Springfield",
    DISTRICT: "Sangamon",
    REGION: "IL",
    POSTCODE: "62704",
  };
}

export function* syntheticNeighbourhood(homes: number): Generator<SyntheticHome> {
  for (let index = 0; index < homes; index++) yield syntheticHome(index);
}

const CSV_HEADER = "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE";

export const csvLineOf = (home: OpenAddressesRecord) =>
  [
    home.LON,
    home.LAT,
    home.NUMBER,
    home.STREET,
    home.UNIT,
    home.CITY,
    home.DISTRICT,
    home.REGION,
    home.POSTCODE,
  ]
    .map((value) => value ?? "")
    .join(",");

/** The neighbourhood as an OpenAddresses CSV text, header first. */
export function* syntheticCsvLines(homes: number): Generator<string> {
  yield `${CSV_HEADER}\n`;
  for (const home of syntheticNeighbourhood(homes)) yield `${csvLineOf(home)}\n`;
}
