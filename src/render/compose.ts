import type { CardContent, CardLogo, CardTexts } from "./card-layout.ts";
import type { CardSize } from "./card-size.ts";
import { applyMergeFields, type MergeValues } from "./merge.ts";
import { shorterMergeValues } from "./merge-bounds.ts";
import { printableOrNull, printableText } from "./printable-text.ts";
import type { ResolvedTemplate } from "./template.ts";

/** Who the card speaks for: the organization's profile (orgs/card-sender.ts loads it). */
export interface CardSender {
  /** The business name, else the organization's name. */
  name: string;
  phone: string | null;
  website: string | null;
  /** Street line, then "City, ST ZIP"; empty when the profile has no return address. */
  returnAddressLines: string[];
  /** The organization's offer line, printed when the automation's template has none of its own. */
  offer: string | null;
  /** The brand colour (#rrggbb) from the profile: the card's accent. */
  brandColor?: string | null;
  logo?: CardLogo;
}

/** What a card is made of, as the pipeline knows it. */
export interface CardRecipient {
  recipientName: string | null;
  /** The one-line address as received ("12 Elm St, Springfield, IL 62701"). */
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  /** The record's properties (custom `cf_…` fields among them). */
  properties: Readonly<Record<string, string>>;
}

/** The mailing address as printed: recipient line, street line, "City, ST ZIP". */
export function addressLines(recipient: CardRecipient): string[] {
  const name = recipient.recipientName?.trim() || "Current Resident";
  if (recipient.street) {
    const stateZip = [recipient.state, recipient.zip].filter(Boolean).join(" ");
    const locality = [recipient.city, stateZip].filter(Boolean).join(", ");
    return [name, recipient.street, ...(locality ? [locality] : [])];
  }
  const [streetLine, ...rest] = recipient.address.split(",").map((part) => part.trim());
  return [name, streetLine ?? recipient.address, ...(rest.length > 0 ? [rest.join(", ")] : [])];
}

/** The recipient's texts without what the card cannot print (a name of CJK letters becomes none). */
function printableRecipient(recipient: CardRecipient): CardRecipient {
  return {
    ...recipient,
    recipientName: printableOrNull(recipient.recipientName),
    street: printableOrNull(recipient.street),
    city: printableOrNull(recipient.city),
    address: printableText(recipient.address),
    properties: Object.fromEntries(
      Object.entries(recipient.properties).map(([key, value]) => [key, printableText(value)]),
    ),
  };
}

export function mergeValues(
  recipient: CardRecipient,
  orgName: string,
  sender?: Pick<CardSender, "phone" | "website">,
): MergeValues {
  const custom = Object.fromEntries(
    Object.entries(recipient.properties).filter(([key]) => key.startsWith("cf_")),
  );
  return {
    ...custom,
    client_name: recipient.recipientName,
    street: recipient.street ?? recipient.address.split(",")[0],
    city: recipient.city,
    org_name: orgName,
    phone: sender?.phone,
    website: sender?.website,
    // Set only on neighbour pieces, by their campaign's fan-out (src/neighbours/neighbour-fanout.ts).
    job_street: recipient.properties.job_street,
    job_city: recipient.properties.job_city,
  };
}

export function composeCard(input: {
  recipient: CardRecipient;
  /** The organization's name: what prints when no sender profile is given. */
  orgName: string;
  /** The organization's profile; without it the card carries the name alone. */
  sender?: CardSender;
  template: ResolvedTemplate;
  landingUrl: string;
  homeImage: CardContent["homeImage"];
  printAddressBlock: boolean;
  size?: CardSize;
}): CardContent {
  const sender = input.sender ?? {
    name: input.orgName,
    phone: null,
    website: null,
    returnAddressLines: [],
    offer: null,
  };
  // What the typeface cannot print leaves every value (an emptied one takes its fallback) and text.
  const recipient = printableRecipient(input.recipient);
  const senderName = printableText(sender.name);
  const values = mergeValues(recipient, senderName, sender);
  const offer = input.template.offer ?? sender.offer;
  const merge = (text: string, merged: MergeValues) => printableText(applyMergeFields(text, merged));
  const textsWith = (merged: MergeValues): CardTexts => ({
    headline: merge(input.template.headline, merged),
    greetingName: merge("{{client_name}}", merged),
    message: merge(input.template.message, merged),
    offer: offer ? merge(offer, merged) : null,
  });
  return {
    size: input.size ?? input.template.size,
    ...textsWith(values),
    shorterTexts: shorterMergeValues(values, { ...input.template, offer }).map(textsWith),
    senderName,
    returnAddressLines: sender.returnAddressLines.map(printableText),
    phone: printableOrNull(sender.phone),
    accent: sender.brandColor ?? null,
    ...(sender.logo ? { logo: sender.logo } : {}),
    addressLines: addressLines(recipient),
    landingUrl: input.landingUrl,
    homeImage: input.homeImage,
    printAddressBlock: input.printAddressBlock,
  };
}
