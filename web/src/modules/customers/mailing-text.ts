/**
 * A new mailing's card text: it fits a 4x6 card beside a logo, a two-line return address and the
 * longest offer Settings accepts (test/web/default-card-text.test.ts), as the builder's does.
 */
export const MAILING_CARD_TEXT = {
  headline: "Time for a check-up at {{street}}?",
  message:
    "Hi {{client_name}}, it has been a while since we worked on your home. Scan the code to book your next visit.",
} as const;
