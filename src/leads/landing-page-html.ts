// The landing page's own screens: the form a homeowner fills in, the thanks, the stop-mail
// confirmation. The page frame and its error pages are the http layer's (http/landing-html.ts).
import { MIN_TEXT_CONTRAST, readableOn, textColourOn } from "../domain/colour-contrast.ts";
import { escapeHtml, type PageTheme, page } from "../http/landing-html.ts";
import type { LandingContext } from "./capture.ts";
import type { LeadField } from "./lead-fields.ts";
import { SUBMISSION_LIMITS } from "./submission.ts";

/** The business a page speaks for: its profile in the app's Settings (name, phone, logo). */
export interface LandingBusiness {
  name: string;
  phone: string | null;
  /** The logo as a data: URL (the page's policy allows images from data: and itself only). */
  logoDataUrl: string | null;
  /** The brand colour (#rrggbb) from Settings: the page's buttons and headings. */
  brandColor?: string | null;
}

/** What the homeowner's card said, merged as the page may show it (no full name, no town). */
export interface CardWords {
  headline: string;
  offer: string | null;
}

/** The page's background, which headings in the brand colour must stand out from. */
const PAGE_BACKGROUND = "#f5f7fa";

/**
 * The brand colour as the page uses it, contrast computed (WCAG, at least 4.5:1): buttons in the
 * colour with black or white text, whichever reads; headings in it, darkened until they read.
 */
export function themeOf(business: Pick<LandingBusiness, "brandColor">): PageTheme | undefined {
  const brand = business.brandColor;
  if (!brand || !/^#[0-9a-fA-F]{6}$/.test(brand)) return undefined;
  return {
    button: brand.toLowerCase(),
    onButton: textColourOn(brand),
    heading: readableOn(brand, PAGE_BACKGROUND, MIN_TEXT_CONTRAST),
  };
}

/** A phone number as a tel: link dials it: digits and a leading +; null when it has no digits. */
export function telHref(phone: string | null): string | null {
  const digits = (phone ?? "").replace(/[^\d+]/g, "").replace(/(?!^)\+/g, "");
  return /\d{3,}/.test(digits) ? `tel:${digits}` : null;
}

function brandHeader(business: LandingBusiness): string {
  const logo = business.logoDataUrl
    ? `<img src="${escapeHtml(business.logoDataUrl)}" alt="${escapeHtml(business.name)} logo">`
    : "";
  const tel = telHref(business.phone);
  const call = tel
    ? `\n<a class="call" href="${escapeHtml(tel)}">Call ${escapeHtml(business.phone)}</a>`
    : "";
  return `<header class="brand">${logo}<p class="name">${escapeHtml(business.name)}</p></header>${call}`;
}

/** Values to show again when a submission is refused, keyed like the form's inputs. */
export type FormValues = Record<string, unknown>;

function textInput(
  name: string,
  label: string,
  type: string,
  values: FormValues,
  maxLength: number,
  extra = "",
) {
  return `<label for="${name}">${escapeHtml(label)}</label>
<input id="${name}" name="${name}" type="${type}" maxlength="${maxLength}" value="${escapeHtml(first(values[name]))}"${extra}>`;
}

// C0 controls but tab and line breaks, and DEL: a refused value ("A\u0000x") is shown again
// without them, so no raw NUL or escape byte is written into the page.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** A submitted value as the form shows it again. */
function first(value: unknown): string {
  const text = Array.isArray(value) ? String(value[0] ?? "") : typeof value === "string" ? value : "";
  return text.replace(CONTROL_CHARACTERS, "");
}

function selected(values: FormValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.map(String);
  return typeof value === "string" ? [value] : [];
}

function customFieldInput(field: LeadField, values: FormValues): string {
  const name = `custom_${field.field_id}`;
  const chosen = selected(values, name);
  const label = escapeHtml(field.label);
  const id = escapeHtml(name);
  switch (field.type) {
    case "text":
      return textInput(id, field.label, "text", values, SUBMISSION_LIMITS.customText);
    case "select":
      return `<label for="${id}">${label}</label>
<select id="${id}" name="${id}"><option value="">Choose…</option>${field.options
        .map(
          (option) =>
            `<option value="${escapeHtml(option)}"${chosen.includes(option) ? " selected" : ""}>${escapeHtml(option)}</option>`,
        )
        .join("")}</select>`;
    case "multiselect":
    case "checkbox": {
      if (field.type === "checkbox" && field.options.length === 0) {
        return `<label class="choice"><input type="checkbox" name="${id}" value="yes"${chosen.length > 0 ? " checked" : ""}> ${label}</label>`;
      }
      return `<fieldset class="card"><legend>${label}</legend>${field.options
        .map(
          (option) =>
            `<label class="choice"><input type="checkbox" name="${id}" value="${escapeHtml(option)}"${chosen.includes(option) ? " checked" : ""}> ${escapeHtml(option)}</label>`,
        )
        .join("")}</fieldset>`;
    }
  }
  return "";
}

export function renderLandingPage(
  context: LandingContext,
  options: {
    nonce: string;
    action: string;
    values?: FormValues;
    error?: string;
    stopMailPath?: string;
    business?: LandingBusiness;
    card?: CardWords;
  },
): string {
  const values = options.values ?? {};
  const business = options.business ?? { name: context.orgName, phone: null, logoDataUrl: null };
  // Anyone holding the URL sees the page: a first name and a street line, never the full name or
  // the town and ZIP that would make the card's recipient findable.
  const greeting = context.firstName ? `Hi ${context.firstName},` : "Hello,";
  const error = options.error ? `<div class="error" role="alert">${escapeHtml(options.error)}</div>` : "";
  const card = options.card
    ? `<section class="card mailed" aria-label="Your card"><p class="headline">${escapeHtml(options.card.headline)}</p>${
        options.card.offer ? `<p class="offer">${escapeHtml(options.card.offer)}</p>` : ""
      }</section>\n`
    : "";
  const body = `${brandHeader(business)}
<h1>${escapeHtml(greeting)} let's talk about your home.</h1>
${card}
<div class="card mailed-to"><p class="muted">This card was mailed to</p><p><strong>${escapeHtml(context.streetLine)}</strong></p></div>
<form class="card" method="post" action="${escapeHtml(options.action)}">
${error}<div class="row">
<div>${textInput("first_name", "First name", "text", values, SUBMISSION_LIMITS.first_name, ' required autocomplete="given-name"')}</div>
<div>${textInput("last_name", "Last name", "text", values, SUBMISSION_LIMITS.last_name, ' required autocomplete="family-name"')}</div>
</div>
${textInput("email", "Email", "email", values, SUBMISSION_LIMITS.email, ' autocomplete="email"')}
${textInput("phone", "Phone", "tel", values, SUBMISSION_LIMITS.phone, ' autocomplete="tel" aria-describedby="phone-consent"')}
<p id="phone-consent" class="muted consent">By giving your phone number you agree that ${escapeHtml(business.name)} may call or text you about your home. Your details go to ${escapeHtml(business.name)} only, to answer you; they are never sold.</p>
<p class="muted">An email or a phone number is needed so ${escapeHtml(business.name)} can reach you.</p>
<label for="message">Message</label>
<textarea id="message" name="message" maxlength="${SUBMISSION_LIMITS.message}">${escapeHtml(first(values.message))}</textarea>
${context.fields.map((field) => customFieldInput(field, values)).join("\n")}
<button type="submit">Send</button>
</form>${options.stopMailPath ? `\n<p class="muted"><a href="${escapeHtml(options.stopMailPath)}" rel="nofollow">Stop mail to this address</a></p>` : ""}`;
  return page(business.name, options.nonce, body, themeOf(business));
}

export function renderThankYou(context: LandingContext, nonce: string, theme?: PageTheme): string {
  return page(
    `Thank you — ${context.orgName}`,
    nonce,
    `<div class="card"><h1>Thank you!</h1><p>${escapeHtml(context.orgName)} has your details and will be in touch soon.</p></div>`,
    theme,
  );
}

/**
 * The opt-out's confirm step: a link (or a prefetching mail scanner) only opens this page; the
 * home leaves the mailing list when the visitor posts its form.
 */
export function renderStopMailConfirm(
  context: LandingContext,
  options: { nonce: string; action: string; theme?: PageTheme | undefined },
): string {
  return page(
    `Stop mail — ${context.orgName}`,
    options.nonce,
    `<form class="card" method="post" action="${escapeHtml(options.action)}">
<h1>Stop mail to this address?</h1>
<p>${escapeHtml(context.orgName)} will send no more cards to <strong>${escapeHtml(context.streetLine)}</strong>.</p>
<input type="hidden" name="confirm" value="yes">
<button type="submit">Stop mail to this address</button>
</form>`,
    options.theme,
  );
}

export function renderStopMailDone(context: LandingContext, nonce: string, theme?: PageTheme): string {
  return page(
    `Mail stopped — ${context.orgName}`,
    nonce,
    `<div class="card"><h1>Done</h1><p>${escapeHtml(context.orgName)} will send no more cards to <strong>${escapeHtml(context.streetLine)}</strong>.</p></div>`,
    theme,
  );
}

/** A page could not be served or a form not taken for a moment (rate limit, outage, shutdown). */
