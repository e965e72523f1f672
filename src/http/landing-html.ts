/** Escapes text for HTML element content and double-quoted attribute values alike. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`=/]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page's policy: nothing external, no scripts at all, styles only from the nonce'd inline
 * block, and the form may post only back to this origin.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f5f7fa}
main{max-width:36rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem}
.card{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
.muted{color:#52606d;font-size:.95rem}
.nowrap{white-space:nowrap}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=tel],select,textarea{width:100%;padding:.7rem;font:inherit;border:1px solid #cbd2d9;border-radius:.5rem;background:#fff}
textarea{min-height:6rem}
.choice{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.35rem 0}
.row{display:grid;gap:0 .75rem}
@media (min-width:30rem){.row{grid-template-columns:1fr 1fr}}
.brand{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;margin-bottom:.5rem}
.brand img{max-height:3rem;max-width:10rem;width:auto;height:auto}
.brand .name{font-weight:700;font-size:1.05rem;margin:0;flex:1 1 10rem}
.call{display:block;text-align:center;padding:.85rem;font-weight:700;color:#fff;background:#047857;border-radius:.5rem;text-decoration:none;margin:0 0 1rem}
.call:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.consent{font-size:.85rem;margin:.35rem 0 0}
button{margin-top:1.25rem;width:100%;padding:.85rem;font:inherit;font-weight:700;color:#fff;background:#1d4ed8;border:0;border-radius:.5rem}
.mailed .headline{font-size:1.15rem;font-weight:700;margin:0}
.mailed .offer{font-weight:700;color:#9a3412;margin:.5rem 0 0}
.mailed-to p{margin:0}
.mailed-to .muted{margin-bottom:.25rem}
.error{background:#fde8e8;color:#9b1c1c;border-radius:.5rem;padding:.75rem;margin-bottom:1rem}
.sent{background:#e3f9e5;color:#14532d;border-radius:.5rem;padding:.75rem;margin-bottom:1rem}
.problem{color:#9b1c1c;font-weight:600;margin:0 0 .25rem}
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border:2px solid #c81e1e}
.hint{margin:.75rem 0 0}
.stop-mail a{display:inline-block;padding:.75rem 0;min-height:44px}
`;

/** The business's colours on its pages (leads/landing-page-html.ts computes them for contrast). */
export interface PageTheme {
  /** Buttons' background, and the text on it. */
  button: string;
  onButton: string;
  /** Headings and the card's offer, readable on the page's background. */
  heading: string;
}

const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/** Only #rrggbb values reach the style block: nothing else could be injected into it. */
function themeStyle(theme: PageTheme | undefined): string {
  if (!theme || ![theme.button, theme.onButton, theme.heading].every((c) => HEX_COLOUR.test(c))) return "";
  return (
    `\nbutton,.call{background:${theme.button};color:${theme.onButton}}` +
    `\nh1,.mailed .offer{color:${theme.heading}}\n.mailed{border-top:4px solid ${theme.button}}`
  );
}

/** A whole landing page: the shared head (policy nonce, no referrer, not indexed) and style. */
export function page(title: string, nonce: string, body: string, theme?: PageTheme): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}${themeStyle(theme)}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export function renderTryAgain(nonce: string): string {
  return page(
    "Please try again",
    nonce,
    `<div class="card"><h1>We could not load this just now</h1><p class="muted">Please try again in a minute.</p></div>`,
  );
}

/** A form post the server could not read (over the size limit, broken encoding). */
export function renderUnreadableForm(nonce: string): string {
  return page(
    "Form not sent",
    nonce,
    `<div class="card"><h1>Your details were not sent</h1><p class="muted">Go back, check the form and send it again.</p></div>`,
  );
}

export function renderNotFound(nonce: string): string {
  return page(
    "Page not found",
    nonce,
    `<div class="card"><h1>This page does not exist</h1><p class="muted">Check the address printed on your card.</p></div>`,
  );
}
