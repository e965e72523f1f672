import type { ZipCode } from "zipcodes";
import { townKey } from "./town-names.ts";
import { zipPlaces } from "./zip-places.ts";

/**
 * How near (between ZIP centroids) a town written on an address must be to its ZIP for the
 * normal-level check to read it as the ZIP's neighbour, a name the carrier accepts, rather than
 * another town. The ZIP table names one place per ZIP, yet the Postal Service takes a city's name
 * for its neighbourhoods' ZIPs and carriers sort by ZIP. Ten miles from the nearest of the town's
 * own ZIPs covers every Boston neighbourhood (02134 Allston 1.6 mi, 02124 Dorchester 3.1, 02136
 * Hyde Park 5.0, 02137 Readville 6.0), every Brooklyn ZIP written "New York" (11201 1.1 mi, 11224
 * Coney Island 8.9) and the Bronx's (7.2 at most), Queens' inner half (11432 Jamaica 8.9), Houston's
 * and Los Angeles's inner suburbs (77373 Spring 3.0, 91401 Van Nuys 4.9); it leaves out Staten
 * Island's south shore (10307, 18 mi) and Los Angeles's outer Valley (91324 Northridge 10.3), and
 * is far below the wrong towns the rule exists for (Chicago and Springfield IL 169 mi, Austin and a
 * Dallas ZIP 167 mi).
 */
export const NEIGHBOUR_TOWN_MILES = 10;

const EARTH_RADIUS_MILES = 3958.8;
/** Miles per degree of latitude, rounded down so a band of latitudes is never too narrow. */
const MILES_PER_DEGREE = 69;
const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** A town's ZIP centroids, in radians, with the band of latitudes within the distance of one. */
interface TownCentroids {
  latitudes: Float64Array;
  longitudes: Float64Array;
  cosLatitudes: Float64Array;
  southmost: number;
  northmost: number;
}

/** The table gives military ZIPs (APO, FPO, DPO) 0,0: no place, so near nothing. */
const hasCentroid = (place: ZipCode) =>
  Number.isFinite(place.latitude) &&
  Number.isFinite(place.longitude) &&
  !(place.latitude === 0 && place.longitude === 0);

function centroidsOf(places: readonly ZipCode[]): TownCentroids {
  const located = places.filter(hasCentroid);
  const latitudes = Float64Array.from(located, (place) => radians(place.latitude));
  const band = radians(NEIGHBOUR_TOWN_MILES / MILES_PER_DEGREE);
  return {
    latitudes,
    longitudes: Float64Array.from(located, (place) => radians(place.longitude)),
    cosLatitudes: latitudes.map(Math.cos),
    southmost: Math.min(...latitudes) - band,
    northmost: Math.max(...latitudes) + band,
  };
}

/**
 * Each town's centroids, by state and town key, made on the town's first check: at most one entry
 * per town of the table (about 30,000, 1 MB were every town checked), so the cache needs no bound.
 */
const townCentroids = new Map<string, TownCentroids>();

function centroidsOfTown(city: string, state: string): TownCentroids | undefined {
  const key = `${state} ${townKey(city)}`;
  let centroids = townCentroids.get(key);
  if (!centroids) {
    const places = zipPlaces.lookupByName(city, state);
    if (places.length === 0) return undefined;
    centroids = centroidsOf(places);
    townCentroids.set(key, centroids);
  }
  return centroids;
}

/**
 * The town (a known town of the ZIP's state) has a ZIP whose centroid is within
 * `NEIGHBOUR_TOWN_MILES` of this ZIP's: "Boston" for 02134 (Allston), "New York" for 11231
 * (Brooklyn); not "Chicago" for 62704 (Springfield). A far town is answered by its band of
 * latitudes alone; a near one stops at its first ZIP within the distance.
 */
export function isNeighbourTown(city: string, zipPlace: ZipCode): boolean {
  if (!hasCentroid(zipPlace)) return false;
  const town = centroidsOfTown(city, zipPlace.state);
  if (!town) return false;
  const latitude = radians(zipPlace.latitude);
  if (latitude < town.southmost || latitude > town.northmost) return false;
  const longitude = radians(zipPlace.longitude);
  const cosLatitude = Math.cos(latitude);
  const limit = Math.sin(NEIGHBOUR_TOWN_MILES / EARTH_RADIUS_MILES / 2) ** 2;
  for (let index = 0; index < town.latitudes.length; index++) {
    // Haversine's inner term, compared with the limit's: the square root and arcsine are monotonic.
    const halfChord =
      Math.sin((town.latitudes[index]! - latitude) / 2) ** 2 +
      cosLatitude * town.cosLatitudes[index]! * Math.sin((town.longitudes[index]! - longitude) / 2) ** 2;
    if (halfChord <= limit) return true;
  }
  return false;
}
