import { lobAuthorization, lobErrorMessage } from "../http/lob-answers.ts";
import type { CardSize } from "../render/card-size.ts";
import {
  type PrintProvider,
  type PrintReceipt,
  PrintRejectedError,
  type PrintRequest,
  PrintUnavailableError,
} from "./print-provider.ts";

export interface LobOptions {
  apiKey: string;
  /** `https://api.lob.com/v1` (tests: a loopback fake). */
  baseUrl: string;
  timeoutMs?: number;
}

/** Lob's size names (its API checks each file against the size's artboard, bleed included). */
const LOB_SIZES: Record<CardSize, string> = { "4x6": "4x6", "6x9": "6x9", "6x11": "6x11" };

function form(request: PrintRequest): FormData {
  const body = new FormData();
  body.set("description", request.description.slice(0, 255));
  body.set("size", LOB_SIZES[request.size]);
  body.set("use_type", "marketing");
  body.set("to[name]", request.to.name.slice(0, 40));
  body.set("to[address_line1]", request.to.line1);
  if (request.to.line2) body.set("to[address_line2]", request.to.line2);
  body.set("to[address_city]", request.to.city);
  body.set("to[address_state]", request.to.state);
  body.set("to[address_zip]", request.to.zip);
  body.set("to[address_country]", "US");
  body.set("metadata[piece_id]", request.pieceId);
  body.set("metadata[org_id]", request.orgId);
  body.set("front", new Blob([new Uint8Array(request.frontPdf)], { type: "application/pdf" }), "front.pdf");
  body.set("back", new Blob([new Uint8Array(request.backPdf)], { type: "application/pdf" }), "back.pdf");
  return body;
}

/**
 * Lob's postcards API. The piece id is the Idempotency-Key, so a retry after a crash or a lost
 * answer returns the postcard Lob already made instead of mailing a second one.
 */
export function createLobProvider(options: LobOptions): PrintProvider {
  const authorization = lobAuthorization(options.apiKey);
  return {
    name: "lob",
    printsAddressBlock: false,
    async submit(request, signal): Promise<PrintReceipt> {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      let response: Response;
      try {
        response = await fetch(`${options.baseUrl}/postcards`, {
          method: "POST",
          headers: { authorization, "idempotency-key": request.pieceId, accept: "application/json" },
          body: form(request),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw new PrintUnavailableError(
          `Lob could not be reached: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (response.ok) {
        const postcard = (await response.json()) as { id?: unknown };
        if (typeof postcard.id !== "string")
          throw new PrintUnavailableError("Lob answered without a postcard id");
        return { providerId: postcard.id, status: "submitted" };
      }
      const message = `Lob answered ${response.status}: ${await lobErrorMessage(response)}`;
      if (response.status === 429 || response.status >= 500) throw new PrintUnavailableError(message);
      throw new PrintRejectedError(message);
    },
  };
}
