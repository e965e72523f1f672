import type { Config } from "../config.ts";
import { type AddressVerifier, offlineVerifier } from "./address-verifier.ts";
import { createLobVerifier } from "./lob-verifier.ts";

export type VerifierConfig = Pick<Config, "addressVerifier" | "lobApiKey" | "lobBaseUrl">;

/** The verifier ADDRESS_VERIFIER names (config validation guarantees LOB_API_KEY for `lob`). */
export function createAddressVerifier(config: VerifierConfig): AddressVerifier {
  if (config.addressVerifier === "lob") {
    return createLobVerifier({ apiKey: config.lobApiKey!, baseUrl: config.lobBaseUrl });
  }
  return offlineVerifier;
}
