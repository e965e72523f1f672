declare module "parse-address" {
  /** Fields produced by parse-address (a port of Perl's Geo::StreetAddress::US). */
  export interface ParsedLocation {
    number?: string;
    prefix?: string;
    street?: string;
    type?: string;
    suffix?: string;
    sec_unit_type?: string;
    sec_unit_num?: string;
    city?: string;
    state?: string;
    zip?: string;
    plus4?: string;
    street1?: string;
    street2?: string;
  }
  export function parseLocation(address: string): ParsedLocation | null;
  const parser: { parseLocation: typeof parseLocation };
  export default parser;
}
