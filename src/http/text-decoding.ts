/**
 * Bytes 0x80-0x9F of windows-1252, which the WHATWG labels "iso-8859-1" and "latin1" also name
 * (browsers send a Latin-1 page's "€" and curly quotes with them; so do Windows CRM exports that
 * say ISO-8859-1). Node 20's TextDecoder reads them as ISO-8859-1's C1 controls, so "€" (0x80)
 * would be stored as U+0080.
 */
const WINDOWS_1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

const windows1252 = (character: string) => WINDOWS_1252_HIGH[character.charCodeAt(0) - 0x80]!;

/** Decodes bytes as the WHATWG Encoding Standard says, also where Node 20 does not; throws as `decoder` does. */
export function decodeText(decoder: TextDecoder, bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  return decoder.encoding === "windows-1252" ? text.replace(/[\u0080-\u009f]/g, windows1252) : text;
}
