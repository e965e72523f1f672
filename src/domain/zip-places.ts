import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ZipCode } from "zipcodes";
import { townKey } from "./town-names.ts";

/**
 * The `zipcodes` package's ZIP table (US ZIPs and Canadian FSAs: centroid, city, state), loaded
 * on the first lookup and read as JSON. Requiring the package compiles its 5 MB object literal:
 * ~200 ms of CPU and ~90 MB held for the life of the process, at every start. Its data files are
 * `exports.codes = {…};` and `exports.stateMap = {…};` with JSON bodies, which JSON.parse reads in
 * a fraction of that into a tenth of the memory. A ZIP's lookup answers exactly as the package's
 * does; a lookup by name compares town keys (`townKey`: "St. Paul" finds SAINT PAUL, "Mt Zion" and
 * "Mount Zion" find MT ZION) where the package compares the names as written.
 */
export interface ZipPlaces {
  lookup(zip: string): ZipCode | undefined;
  lookupByName(city: string, state: string): ZipCode[];
}

interface ZipTable {
  codes: Record<string, ZipCode>;
  stateMap: Record<string, string[]>;
}

const requireHere = createRequire(import.meta.url);

/** Both JSON bodies of a data file, or undefined if the package no longer writes them this way. */
function readDataFile(file: string): ZipTable | undefined {
  const text = readFileSync(file, "utf8");
  const codesAt = text.indexOf("exports.codes = ");
  const stateMapAt = text.indexOf("exports.stateMap = ");
  if (codesAt !== 0 || stateMapAt < 0) return undefined;
  const body = (from: number, to: number) => text.slice(from, to).trim().replace(/;$/, "");
  try {
    return {
      codes: JSON.parse(body("exports.codes = ".length, stateMapAt)),
      stateMap: JSON.parse(body(stateMapAt + "exports.stateMap = ".length, text.length)),
    };
  } catch {
    return undefined;
  }
}

function loadZipPlaces(): ZipPlaces {
  const lib = path.dirname(requireHere.resolve("zipcodes"));
  const states = requireHere(path.join(lib, "states.js")) as { normalize(state: string): string | undefined };
  const us = readDataFile(path.join(lib, "codes.js"));
  const canada = readDataFile(path.join(lib, "codesCanada.js"));
  // A future layout of the package: use it as it is (slower to load, same answers).
  if (!us || !canada) return requireHere("zipcodes") as ZipPlaces;
  const codes = { ...us.codes, ...canada.codes };
  const stateMap = { ...us.stateMap, ...canada.stateMap };
  // The package's own lookup rules (lib/index.js): a Canadian code is looked up by its FSA.
  const lookup = (zip: string) => codes[/^\d/.test(zip) ? zip : zip.slice(0, 3)];
  // The package's own reading of a state: its code or its name, else the text as given.
  const stateKey = (state: string) => {
    const code = states.normalize(state.toUpperCase()) ?? "";
    return Object.hasOwn(stateMap, code) ? code : state;
  };
  // Each state's places by town key, built on the state's first lookup by name.
  const townsOfState = new Map<string, Map<string, ZipCode[]>>();
  const towns = (state: string) => {
    if (!Object.hasOwn(stateMap, state)) return undefined;
    const zips = stateMap[state] as string[];
    let byTown = townsOfState.get(state);
    if (!byTown) {
      byTown = new Map();
      for (const zip of zips) {
        const place = codes[zip] as ZipCode;
        const key = townKey(place.city);
        const places = byTown.get(key);
        if (places) places.push(place);
        else byTown.set(key, [place]);
      }
      townsOfState.set(state, byTown);
    }
    return byTown;
  };
  return {
    lookup,
    lookupByName: (city, state) => towns(stateKey(state))?.get(townKey(city)) ?? [],
  };
}

let loaded: ZipPlaces | undefined;

function table(): ZipPlaces {
  if (!loaded) loaded = loadZipPlaces();
  return loaded;
}

/** The table, loaded by the first lookup. */
export const zipPlaces: ZipPlaces = {
  lookup: (zip) => table().lookup(zip),
  lookupByName: (city, state) => table().lookupByName(city, state),
};
