import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ZipCode } from "zipcodes";

/**
 * The `zipcodes` package's ZIP table (US ZIPs and Canadian FSAs: centroid, city, state), loaded
 * on the first lookup and read as JSON. Requiring the package compiles its 5 MB object literal:
 * ~200 ms of CPU and ~90 MB held for the life of the process, at every start. Its data files are
 * `exports.codes = {…};` and `exports.stateMap = {…};` with JSON bodies, which JSON.parse reads in
 * a fraction of that into a tenth of the memory. Lookups answer exactly as the package's do.
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
  const byState = (state: string) =>
    (stateMap[states.normalize(state.toUpperCase()) ?? ""] ?? stateMap[state] ?? []).map(
      (zip) => codes[zip] as ZipCode,
    );
  return {
    lookup,
    lookupByName: (city, state) => {
      const wanted = city.toUpperCase();
      return byState(state).filter((place) => place.city.toUpperCase() === wanted);
    },
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
