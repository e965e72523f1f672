/**
 * What a profile change must get right before it is saved: every card prints the return address
 * and the website, so an address no carrier could return mail to, or a website nobody can type, is
 * refused in words on its own field instead of being printed.
 */
import { type AddressProblem, offlineAddressProblems } from "../domain/deliverable-address.ts";
import { type ProfilePatch, printedState, type ReturnAddress } from "./organization-profile.ts";

/** What the state field asks for, whether it is empty or holds something else ("Illinois"). */
const STATE_CODE_WANTED = "Enter the state's two-letter code, e.g. IL";

const REQUIRED_PARTS: [keyof ReturnAddress, string][] = [
  ["street", "Enter the street and number"],
  ["city", "Enter the city"],
  ["state", STATE_CODE_WANTED],
  ["postal_code", "Enter the ZIP code"],
];

/** The return address's field for each part of an address the offline check reads. */
const FIELD_OF_PART: Record<AddressProblem["part"], keyof ReturnAddress> = {
  street: "street",
  city: "city",
  state: "state",
  zip: "postal_code",
};

/**
 * A problem of the offline check as its field shows it, as a sentence. A state's one problem is
 * not being a USPS code: its field asks for one, as when it is empty.
 */
function wordsOnField(problem: AddressProblem): string {
  if (problem.part === "state") return STATE_CODE_WANTED;
  return problem.words.charAt(0).toUpperCase() + problem.words.slice(1);
}

/**
 * A return address is whole (street, city, state, ZIP) and passes the offline check cards' addresses
 * meet before print, at the normal level (docs/addresses.md), but for its city: the ZIP table names one
 * place per ZIP, and a business's town is often another name the carrier takes for it (West Hollywood
 * in 90046, Oak Brook in 60521). The ZIP must exist and be in the state written.
 */
function returnAddressProblems(address: ReturnAddress): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [part, words] of REQUIRED_PARTS) {
    if (!address[part].trim()) problems[`return_address.${part}`] = words;
  }
  // The parts written are checked too, so one save names every field to correct ("abc" as the ZIP
  // beside an empty city); a missing part keeps the words that ask for it.
  const written = { street: address.street, state: printedState(address.state), zip: address.postal_code };
  for (const problem of offlineAddressProblems(written, "normal")) {
    problems[`return_address.${FIELD_OF_PART[problem.part]}`] ??= wordsOnField(problem);
  }
  return problems;
}

/** A web address as people write it on a card: a host name with a dot, with or without https://. */
function isWebsite(value: string): boolean {
  const written = value.trim();
  if (/\s/.test(written)) return false;
  try {
    const url = new URL(/^https?:\/\//i.test(written) ? written : `https://${written}`);
    return /^[^.]+(\.[^.]+)+$/.test(url.hostname) && !/^\d+(\.\d+)+$/.test(url.hostname);
  } catch {
    return false;
  }
}

/** Each field of `patch` that cannot be saved, with what to do, by its API name. */
export function profilePatchProblems(patch: ProfilePatch): Record<string, string> {
  const problems: Record<string, string> = {};
  if (patch.website?.trim() && !isWebsite(patch.website)) {
    problems.website = "Enter a web address like rooferpros.com";
  }
  if (patch.return_address) Object.assign(problems, returnAddressProblems(patch.return_address));
  return problems;
}
