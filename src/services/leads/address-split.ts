import type { ParsedLocation } from "parse-address";
import { parseLocation } from "../../domain/address.ts";

export interface AddressSplit {
  street: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  full_address: string;
}

export interface PieceAddress {
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

/**
 * The lead's address fields from the mailed piece: the parts stored with the piece when it has
 * them, otherwise parsed from its one-line address. The service mails in the US only.
 */
export function splitPieceAddress(piece: PieceAddress): AddressSplit {
  const hasParts = Boolean(piece.street && (piece.city || piece.zip));
  const parsed = hasParts ? null : parseLocation(piece.address);
  const street = hasParts ? piece.street! : streetOf(piece.address, parsed);
  return {
    street,
    city: (hasParts ? piece.city : parsed?.city) ?? "",
    state: (hasParts ? piece.state : parsed?.state) ?? "",
    postal_code: (hasParts ? piece.zip : parsed?.zip) ?? "",
    country: "US",
    full_address: piece.address,
  };
}

/** The street as written (parse-address abbreviates "Terrace" to "Ter"); parsed parts otherwise. */
function streetOf(address: string, parsed: ParsedLocation | null): string {
  const beforeComma = address.split(",")[0]!.trim();
  if (address.includes(",") && beforeComma) return beforeComma;
  return parsed ? streetLine(parsed) : address;
}

function streetLine(parsed: ParsedLocation): string {
  const unit = [parsed.sec_unit_type, parsed.sec_unit_num].filter(Boolean).join(" ");
  return [parsed.number, parsed.prefix, parsed.street, parsed.type, parsed.suffix, unit]
    .filter(Boolean)
    .join(" ");
}
