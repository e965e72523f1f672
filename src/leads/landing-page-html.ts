// The landing page's own screens: the form a homeowner fills in, the thanks, the stop-mail
// confirmation. The page frame and its error pages are the http layer's (http/landing-html.ts).
import { MIN_TEXT_CONTRAST, readableOn, textColourOn } from "../domain/colour-contrast.ts";
import { escapeHtml, type PageTheme, page } from "../http/landing-html.ts";
import type { LandingContext } from "./capture.ts";
import type { LeadField } from "./lead-fields.ts";
import { type FieldProblem, SUBMISSION_LIMITS } from "./submission.ts";

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
  return `${brandName(business)}${callButton(business)}`;
}

function brandName(business: LandingBusiness): string {
  const logo = business.logoDataUrl
    ? `<img src="${escapeHtml(business.logoDataUrl)}" alt="${escapeHtml(business.name)} logo">`
    : "";
  return `<header class="brand">${logo}<p class="name">${escapeHtml(business.name)}</p></header>`;
}

function callButton(business: LandingBusiness): string {
  const tel = telHref(business.phone);
  return tel ? `\n<a class="call" href="${escapeHtml(tel)}">Call ${escapeHtml(business.phone)}</a>` : "";
}

/** Values to show again when a submission is refused, keyed like the form's inputs. */
export type FormValues = Record<string, unknown>;

/** What the form says of its fields' problems, in the homeowner's words, by input name. */
export type FieldMessages = ReadonlyMap<string, string>;

/** A refused field: its message's id for aria-describedby, and the attributes that mark it. */
const problemId = (name: string) => `${name}-problem`;

function problemText(name: string, messages: FieldMessages): string {
  const message = messages.get(name);
  return message ? `\n<p id="${problemId(name)}" class="problem">${escapeHtml(message)}</p>` : "";
}

/**
 * The attributes that tie an input to its problem (said first) and its hints. The first refused
 * field takes the focus (`autofocus` needs no script), where the homeowner starts correcting.
 */
function problemAttributes(name: string, messages: FieldMessages, hints: string[] = []): string {
  const refused = messages.has(name);
  const describedBy = [...(refused ? [problemId(name)] : []), ...hints];
  const focus = refused && messages.keys().next().value === name ? " autofocus" : "";
  return `${refused ? ' aria-invalid="true"' : ""}${describedBy.length > 0 ? ` aria-describedby="${describedBy.join(" ")}"` : ""}${focus}`;
}

function textInput(
  name: string,
  label: string,
  type: string,
  form: { values: FormValues; messages: FieldMessages },
  maxLength: number,
  extra = "",
  hints: string[] = [],
) {
  // A field the form needs says so beside its name, not only to the browser's own check.
  const needed = /\brequired\b/.test(extra) ? ' <span class="muted">(required)</span>' : "";
  return `<label for="${name}">${escapeHtml(label)}${needed}</label>${problemText(name, form.messages)}
<input id="${name}" name="${name}" type="${type}" maxlength="${maxLength}" value="${escapeHtml(first(form.values[name]))}"${extra}${problemAttributes(name, form.messages, hints)}>`;
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

function customFieldInput(field: LeadField, form: { values: FormValues; messages: FieldMessages }): string {
  const name = `custom_${field.field_id}`;
  const chosen = selected(form.values, name);
  const label = escapeHtml(field.label);
  const id = escapeHtml(name);
  const problem = problemText(id, form.messages);
  switch (field.type) {
    case "text":
      return textInput(id, field.label, "text", form, SUBMISSION_LIMITS.customText);
    case "select":
      return `<label for="${id}">${label}</label>${problem}
<select id="${id}" name="${id}"${problemAttributes(id, form.messages)}><option value="">Choose…</option>${field.options
        .map(
          (option) =>
            `<option value="${escapeHtml(option)}"${chosen.includes(option) ? " selected" : ""}>${escapeHtml(option)}</option>`,
        )
        .join("")}</select>`;
    case "multiselect":
    case "checkbox": {
      if (field.type === "checkbox" && field.options.length === 0) {
        return `${problem}<label class="choice"><input type="checkbox" name="${id}" value="yes"${chosen.length > 0 ? " checked" : ""}${problemAttributes(id, form.messages)}> ${label}</label>`;
      }
      return `<fieldset class="card"${form.messages.has(id) ? ` aria-describedby="${problemId(id)}"` : ""}><legend>${label}</legend>${problem}${field.options
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
    /** The refused fields' messages (formMessages), shown beside each field. */
    messages?: FieldMessages;
    /** A refusal no field carries: said at the top alone. */
    error?: string;
    stopMailPath?: string;
    business?: LandingBusiness;
    card?: CardWords;
    /** This browser sent the form before (landing-pages/sent-cookie.ts). */
    sentBefore?: boolean;
  },
): string {
  const form = { values: options.values ?? {}, messages: options.messages ?? new Map<string, string>() };
  const business = options.business ?? { name: context.orgName, phone: null, logoDataUrl: null };
  // Anyone holding the URL sees the page: a first name and a street line, never the full name or
  // the town and ZIP that would make the card's recipient findable.
  const greeting = context.firstName ? `Hi ${context.firstName},` : "Hello,";
  const error = refusalSummary(form.messages, options.error, options.sentBefore ? business.name : undefined);
  const sent =
    options.sentBefore && !error
      ? `<div class="sent" role="status"><strong>Your details reached ${escapeHtml(business.name)}.</strong> They will be in touch. Send the form again only to add or correct something.</div>\n`
      : "";
  const card = options.card
    ? `<section class="card mailed" aria-label="Your card"><p class="headline">${escapeHtml(options.card.headline)}</p>${
        options.card.offer ? `<p class="offer">${escapeHtml(options.card.offer)}</p>` : ""
      }</section>\n`
    : "";
  const body = `${brandHeader(business)}
<h1>${escapeHtml(greeting)} let's talk about your home.</h1>
${card}
<div class="card mailed-to"><p class="muted">This card was mailed to</p><p><strong>${escapeHtml(context.streetLine)}</strong></p></div>
${sent}<form class="card" method="post" action="${escapeHtml(options.action)}">
${error}<div class="row">
<div>${textInput("first_name", "First name", "text", form, SUBMISSION_LIMITS.first_name, ' required autocomplete="given-name"')}</div>
<div>${textInput("last_name", "Last name", "text", form, SUBMISSION_LIMITS.last_name, ' required autocomplete="family-name"')}</div>
</div>
<p id="reach-hint" class="muted hint">An email or a phone number is needed so ${escapeHtml(business.name)} can reach you.</p>
${textInput("email", "Email", "email", form, SUBMISSION_LIMITS.email, ' autocomplete="email"', ["reach-hint"])}
${textInput("phone", "Phone", "tel", form, SUBMISSION_LIMITS.phone, ' autocomplete="tel"', ["phone-consent"])}
<p id="phone-consent" class="muted consent">By giving your phone number you agree that ${escapeHtml(business.name)} may call or text you about your home. Your details go to ${escapeHtml(business.name)} only, to answer you; they are never sold.</p>
<label for="message">Message</label>${problemText("message", form.messages)}
<textarea id="message" name="message" maxlength="${SUBMISSION_LIMITS.message}"${problemAttributes("message", form.messages, ["message-hint"])}>${escapeHtml(first(form.values.message))}</textarea>
<p id="message-hint" class="muted consent">Up to ${SUBMISSION_LIMITS.message.toLocaleString("en-US")} characters.</p>
${context.fields.map((field) => customFieldInput(field, form)).join("\n")}
<button type="submit">Send</button>
</form>${options.stopMailPath ? `\n<p class="muted stop-mail"><a href="${escapeHtml(options.stopMailPath)}" rel="nofollow">Stop mail to this address</a></p>` : ""}`;
  return page(business.name, options.nonce, body, themeOf(business));
}

/** A refusal's reason (after "field: "), as a homeowner would understand it; the API's words stay the API's. */
const HOMEOWNER_WORDS: [RegExp, (match: RegExpMatchArray, field: string, business: string) => string][] = [
  [
    /^an email or a phone number is required$/,
    (_, __, business) => `Please give an email or a phone number, so ${business} can reach you.`,
  ],
  [/^is required$/, (_, field) => `Please enter your ${field === "first_name" ? "first" : "last"} name.`],
  [
    /^must be at most (\d+) characters$/,
    ([, limit]) => `Please shorten this to ${Number(limit).toLocaleString("en-US")} characters or fewer.`,
  ],
  [/^is not a valid email address$/, () => "Please enter your whole email address, like name@example.com."],
  [
    /^is not a valid phone number$/,
    () => "Please enter a phone number of at least 7 digits, like (217) 555-0123.",
  ],
  [
    /^(?:contains control characters|must be well-formed)/,
    () => "Please type this again: it has characters that cannot be sent.",
  ],
  [/^must be yes or no$/, () => "Please tick the box or leave it empty."],
  [/(?:is not one of the options|takes one)/, () => "Please choose from the options shown."],
];

/** The problems of a refused form (submission.ts's formProblems) in the homeowner's words, by input name. */
export function formMessages(problems: FieldProblem[], business: string): FieldMessages {
  const messages = new Map<string, string>();
  for (const { field, detail } of problems) {
    const reason = detail.slice(detail.indexOf(": ") + 2);
    const words = HOMEOWNER_WORDS.find(([pattern]) => pattern.test(reason));
    const match = words ? reason.match(words[0]) : null;
    messages.set(field, words && match ? words[1](match, field, business) : "Please check this field.");
  }
  return messages;
}

/**
 * The top of a refused form: that this form was not sent (though an earlier one from this browser
 * reached `sentTo`, when it did), and where to look.
 */
function refusalSummary(messages: FieldMessages, error: string | undefined, sentTo?: string): string {
  if (messages.size === 0 && !error) return "";
  const where =
    messages.size === 0
      ? (error ?? "")
      : messages.size === 1
        ? "Please check the field marked below."
        : `Please check the ${messages.size} fields marked below.`;
  const state = sentTo
    ? `Your earlier details reached ${escapeHtml(sentTo)}; these changes were not sent.`
    : "Your details were not sent yet.";
  return `<div class="error" role="alert"><strong>${state}</strong> ${escapeHtml(where)}</div>`;
}

/**
 * The thanks, under the business's name and logo as on the form, saying where the business will
 * answer: a homeowner who mistyped their email sees it here, and can call instead.
 */
export function renderThankYou(
  context: LandingContext,
  options: { nonce: string; business: LandingBusiness; reachAt: { email: string; phone: string } },
): string {
  const { business, reachAt } = options;
  // A phone number broken at its hyphen ("217-555-" / "0199") reads as two; an email may wrap.
  const where = [
    reachAt.email && `<strong>${escapeHtml(reachAt.email)}</strong>`,
    reachAt.phone && `<strong class="nowrap">${escapeHtml(reachAt.phone)}</strong>`,
  ].filter(Boolean);
  return page(
    `Thank you — ${context.orgName}`,
    options.nonce,
    `${brandName(business)}
<div class="card"><h1>Thank you!</h1><p>${escapeHtml(context.orgName)} has your details and will be in touch soon${where.length > 0 ? ` at ${where.join(" or ")}` : ""}.</p></div>${callButton(business)}`,
    themeOf(business),
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
