/**
 * Address verification before print (issue 39): an interface with an offline default and Lob's US
 * verification API (ADDRESS_VERIFIER=lob). The pipeline asks it about every card before the card is
 * rendered, printed or counted in a cap.
 */
import {
  checkAddressOffline,
  type VerificationLevel,
  type WrittenAddress,
} from "../domain/deliverable-address.ts";

/** The address to print, in the verifier's standard form (USPS abbreviations, ZIP+4). */
export interface StandardAddress {
  line1: string;
  line2: string | null;
  city: string;
  state: string;
  zip: string;
}

export type Verification =
  | { deliverable: true; standardized: StandardAddress | null }
  | { deliverable: false; reason: string };

export interface AddressVerifier {
  readonly name: "offline" | "lob";
  /** Throws AddressVerifierUnavailableError when the verifier cannot answer now (retry later). */
  verify(address: WrittenAddress, level: VerificationLevel, signal?: AbortSignal): Promise<Verification>;
}

export class AddressVerifierUnavailableError extends Error {}

/** The default: what the ZIP table and the address itself can tell (src/domain/deliverable-address.ts). */
export const offlineVerifier: AddressVerifier = {
  name: "offline",
  async verify(address, level) {
    const check = checkAddressOffline(address, level);
    return check.deliverable ? { deliverable: true, standardized: null } : check;
  },
};
