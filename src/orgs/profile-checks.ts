/**
 * What a profile change must get right before it is saved: every card prints the return address
 * and the website, so an address no carrier could return mail to, or a website nobody can type, is
 * refused in words on its own field instead of being printed.
 */
import { offlineAddressProblems } from "../domain/deliverable-address.ts";
import { type ProfilePatch, printedState, type ReturnAddress } from "./organization-profile.ts";

const REQUIRED_PARTS: [keyof ReturnAddress, string][] = [
  ["street", "Enter the street and number"],
  ["city", "Enter the city"],
  ["state", "Enter the state's two-letter code, e.g. IL"],
  ["postal_code", "Enter the ZIP code"],
];

/** The field of the return address a problem of the offline check is about. */
function fieldOfProblem(problem: string): keyof ReturnAddress {
  if (/street|house number/.test(problem)) return "street";
  if (/not a US state code/.test(problem)) return "state";
  return "postal_code";
}

/**
 * A return address is whole (street, city, state, ZIP) and passes the offline check cards' addresses
 * meet before print, at the normal level (docs/addresses.md), but for its city: the ZIP table names one
 * place per ZIP, and a business's town is often another name the carrier takes for it (West Hollywood
 * in 90046, Oak Brook in 60521). The ZIP must exist and be in the state written.
 */
function returnAddressProblems(address: ReturnAddress): Record<string, string> {
  const missing = REQUIRED_PARTS.filter(([part]) => !address[part].trim());
  if (missing.length > 0) {
    return Object.fromEntries(missing.map(([part, words]) => [`return_address.${part}`, words]));
  }
  const problems: Record<string, string> = {};
  const written = { street: address.street, state: printedState(address.state), zip: address.postal_code };
  for (const problem of offlineAddressProblems(written, "normal")) {
    const field = `return_address.${fieldOfProblem(problem)}`;
    const words = /not a US state code/.test(problem) ? "Use the state's two-letter code, e.g. IL" : problem;
    problems[field] ??= words.charAt(0).toUpperCase() + words.slice(1);
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
