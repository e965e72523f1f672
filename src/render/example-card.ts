import { placeholderImage } from "../imagery/placeholder.ts";
import type { CardContent } from "./card-layout.ts";
import { composeCard } from "./compose.ts";
import { DEFAULT_TEMPLATE } from "./template.ts";

/** A card of the default template for a made-up home on `street`, with the placeholder picture: for warming up and tests. */
export function exampleCard(street = "1 Example St"): CardContent {
  return composeCard({
    recipient: {
      recipientName: "Alex Example",
      address: street,
      street,
      city: "Springfield",
      state: "IL",
      zip: "62704",
      properties: {},
    },
    orgName: "Bright Roofing",
    template: DEFAULT_TEMPLATE,
    landingUrl: "https://porchlight.example/l/abcdefghijklmnopqrstuv",
    homeImage: placeholderImage({
      address: street,
      street,
      city: "Springfield",
      latitude: null,
      longitude: null,
    }),
    printAddressBlock: true,
  });
}
