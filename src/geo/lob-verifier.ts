import type { VerificationLevel, WrittenAddress } from "../domain/deliverable-address.ts";
import { lobAuthorization, lobErrorMessage } from "../http/lob-answers.ts";
import {
  type AddressVerifier,
  AddressVerifierUnavailableError,
  type StandardAddress,
  type Verification,
} from "./address-verifier.ts";

export interface LobVerifierOptions {
  apiKey: string;
  /** `https://api.lob.com/v1` (tests: a loopback fake). */
  baseUrl: string;
  timeoutMs?: number;
}

/** Lob's `deliverability` values, and the levels at which each may be printed. */
export const LOB_DELIVERABILITY: Record<string, { passes: readonly VerificationLevel[]; words: string }> = {
  deliverable: { passes: ["strict", "normal", "relaxed"], words: "" },
  deliverable_unnecessary_unit: {
    passes: ["normal", "relaxed"],
    words: "USPS delivers there, but the address names a unit the building does not have",
  },
  deliverable_incorrect_unit: {
    passes: ["relaxed"],
    words: "the building is deliverable, but USPS does not know its apartment or unit number",
  },
  deliverable_missing_unit: {
    passes: ["relaxed"],
    words: "the building needs an apartment or unit number, and the address has none",
  },
  undeliverable: { passes: [], words: "USPS does not deliver to this address" },
};

interface LobVerification {
  primary_line?: string;
  secondary_line?: string;
  deliverability?: string;
  components?: { city?: string; state?: string; zip_code?: string; zip_code_plus_4?: string };
}

function standardOf(answer: LobVerification): StandardAddress | null {
  const { components } = answer;
  if (!answer.primary_line || !components?.city || !components.state || !components.zip_code) return null;
  return {
    line1: answer.primary_line,
    line2: answer.secondary_line || null,
    city: components.city,
    state: components.state,
    zip: components.zip_code_plus_4
      ? `${components.zip_code}-${components.zip_code_plus_4}`
      : components.zip_code,
  };
}

/** Lob's US verification API: `POST /v1/us_verifications`, one address a request. */
export function createLobVerifier(options: LobVerifierOptions): AddressVerifier {
  const authorization = lobAuthorization(options.apiKey);
  return {
    name: "lob",
    async verify(
      address: WrittenAddress,
      level: VerificationLevel,
      signal?: AbortSignal,
    ): Promise<Verification> {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
      let response: Response;
      try {
        response = await fetch(`${options.baseUrl}/us_verifications`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            primary_line: address.street ?? "",
            city: address.city ?? "",
            state: address.state ?? "",
            zip_code: address.zip ?? "",
          }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw new AddressVerifierUnavailableError(
          `Lob's address verification could not be reached: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!response.ok) {
        const message = `Lob's address verification answered ${response.status}: ${await lobErrorMessage(response)}`;
        // Lob refuses an address it cannot read with 422; anything else is Lob's or our key's problem.
        if (response.status === 422 || response.status === 400)
          return { deliverable: false, reason: message };
        throw new AddressVerifierUnavailableError(message);
      }
      const answer = (await response.json()) as LobVerification;
      const deliverability = answer.deliverability ?? "";
      const rule = LOB_DELIVERABILITY[deliverability];
      if (!rule) {
        return { deliverable: false, reason: `Lob's address verification answered "${deliverability}"` };
      }
      if (!rule.passes.includes(level)) {
        return { deliverable: false, reason: `${rule.words} (Lob: ${deliverability})` };
      }
      return { deliverable: true, standardized: standardOf(answer) };
    },
  };
}
