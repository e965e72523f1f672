import type { CardSize } from "../render/card-size.ts";

/**
 * Who prints and mails a piece. PRINT_PROVIDER picks the adapter (print/index.ts): `local`
 * (files in DATA_DIR/outbox, mailed by the shop itself) or `lob`.
 */
export interface PrintRequest {
  pieceId: string;
  orgId: string;
  size: CardSize;
  /** One page each, trim plus bleed. */
  frontPdf: Buffer;
  backPdf: Buffer;
  to: MailingAddress;
  landingUrl: string;
  description: string;
}

export interface MailingAddress {
  name: string;
  line1: string;
  /** The unit line, when the address verifier standardised one apart. */
  line2?: string;
  city: string;
  state: string;
  zip: string;
}

export interface PrintReceipt {
  providerId: string;
  /** `mailed`: the provider is the mailer and it is done; `submitted`: tracking events follow. */
  status: "mailed" | "submitted";
}

export interface PrintProvider {
  readonly name: "local" | "lob";
  /** False when the provider prints postage and the address in its clear zone itself. */
  readonly printsAddressBlock: boolean;
  /** Throws PrintRejectedError (do not retry) or PrintUnavailableError (retry later). */
  submit(request: PrintRequest, signal?: AbortSignal): Promise<PrintReceipt>;
}

/** The provider refused the piece (bad address, bad artwork): sending it again cannot help. */
export class PrintRejectedError extends Error {
  override readonly name = "PrintRejectedError";
}

/** The provider could not be reached, timed out or failed on its side: retry with backoff. */
export class PrintUnavailableError extends Error {
  override readonly name = "PrintUnavailableError";
}
