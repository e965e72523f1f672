// The integrator's guides (docs/*.md that a CRM's developer reads: quickstart, webhooks, limits,
// attribution, Zapier, n8n) rendered as HTML pages under /docs/guides/, beside the interactive
// reference: each on its first request, then kept (~50 ms of marked for all six, not spent at start). A link from one guide to another stays inside /docs/guides/; a link to any
// other repository file becomes its path in words, never a link that answers 404.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Marked, Tokens } from "marked";

export const GUIDES_PREFIX = "/docs/guides";

/** The guides served, in the order their navigation lists them, with the name it shows. */
export const GUIDES = [
  { name: "quickstart", title: "Quickstart" },
  { name: "webhooks", title: "Webhooks" },
  { name: "limits", title: "Limits" },
  { name: "attribution", title: "Attribution" },
  { name: "zapier", title: "Zapier" },
  { name: "n8n", title: "n8n" },
] as const;

const DOCS_DIR = path.resolve(import.meta.dirname, "../../docs");

const STYLE = `body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#fff}
nav{background:#1f2933;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a{color:#fff}nav a[aria-current=page]{font-weight:700;text-decoration:none}
main{max-width:46rem;margin:0 auto;padding:1rem 1rem 4rem}
a{color:#1c4fb8}h1,h2,h3{line-height:1.25}h1{font-size:1.9rem}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f3f5;padding:.1em .3em;border-radius:3px;overflow-wrap:anywhere}
pre{background:#f1f3f5;padding:.75rem 1rem;overflow-x:auto;border-radius:4px}pre code{padding:0;overflow-wrap:normal}
table{border-collapse:collapse;display:block;overflow-x:auto}th,td{border:1px solid #ced4da;padding:.3rem .5rem;text-align:left;vertical-align:top}
blockquote{margin:0;padding-left:1rem;border-left:4px solid #ced4da;color:#495057}`;

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/** No script, no frame, nothing from elsewhere: the style is allowed by its hash. */
export const GUIDE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

/** GitHub's anchor for a heading (its rendered HTML): lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

const guideNames = new Set<string>(GUIDES.map((guide) => guide.name));

/** The address the guides are written for: `npm start`'s own. */
const WRITTEN_FOR = "http://127.0.0.1:3000";

/**
 * A guide as this instance serves it: the address it is written for becomes the instance's own
 * (PUBLIC_BASE_URL, else its host and port), so a curl pasted from it reaches the server that served it.
 */
export const addressedTo = (markdown: string, baseUrl: string) => markdown.replaceAll(WRITTEN_FOR, baseUrl);

/** Where a guide's link goes: another guide's page, an address of its own, or (null) a repository file. */
function guideHref(link: string, baseUrl: string): string | null {
  // A link to this instance's own address stays on the page's origin.
  const href = link.startsWith(`${baseUrl}/`) ? link.slice(baseUrl.length) : link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [file = "", fragment] = href.split("#");
  const name = file.replace(/\.md$/, "");
  if (file.endsWith(".md") && !file.includes("/") && guideNames.has(name)) {
    return `${GUIDES_PREFIX}/${name}${fragment ? `#${fragment}` : ""}`;
  }
  return null;
}

async function renderer(baseUrl: string): Promise<Marked> {
  const { Marked } = await import("marked");
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      // Raw HTML in a guide is shown as text: the pages carry no markup the Markdown did not make.
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        return `<h${depth} id="${escapeHtml(headingSlug(inner))}">${inner}</h${depth}>\n`;
      },
      link({ href, title, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        const target = guideHref(href, baseUrl);
        if (target === null) {
          const file = path.posix.normalize(path.posix.join("docs", href.split("#")[0] ?? ""));
          const where = `<code>${escapeHtml(file)}</code> in the repository`;
          // A link whose words are its file's name says the path alone; other words keep it beside them.
          const words = inner.replace(/<[^>]*>/g, "");
          return file.endsWith(words.replace(/\/$/, "")) ? where : `${inner} (${where})`;
        }
        const titled = title ? ` title="${escapeHtml(title)}"` : "";
        return `<a href="${escapeHtml(target)}"${titled}>${inner}</a>`;
      },
    },
  });
  return marked;
}

function page(current: string, title: string, body: string): string {
  const links = GUIDES.map(
    (guide) =>
      `<a href="${GUIDES_PREFIX}/${guide.name}"${guide.name === current ? ' aria-current="page"' : ""}>${guide.title}</a>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Porchlight developer guides</title>
<style>${STYLE}</style>
</head>
<body>
<nav aria-label="Developer guides"><a href="/docs">API reference</a>${links}</nav>
<main>
${body}</main>
</body>
</html>
`;
}

/** The guides whose files are under docs/ (a missing one has no page), and each one's page as `baseUrl` serves it. */
export function guidePages(
  baseUrl: string,
  docsDir = DOCS_DIR,
): { names: string[]; page: (name: string) => Promise<string> } {
  const names = GUIDES.map((guide) => guide.name).filter((name) =>
    existsSync(path.join(docsDir, `${name}.md`)),
  );
  const rendered = new Map<string, Promise<string>>();
  let shared: Promise<Marked> | undefined;
  const render = async (name: string) => {
    const markdown = addressedTo(readFileSync(path.join(docsDir, `${name}.md`), "utf8"), baseUrl);
    const title = GUIDES.find((guide) => guide.name === name)?.title ?? name;
    const heading = /^# (.+)$/m.exec(markdown)?.[1]?.replace(/`/g, "") ?? title;
    shared ??= renderer(baseUrl);
    // Code blocks and tables scroll sideways on a phone: a keyboard reaches them (WCAG 2.1.1).
    const body = (await shared)
      .parse(markdown, { async: false })
      .replaceAll("<pre>", '<pre tabindex="0">')
      .replaceAll("<table>", '<table tabindex="0">');
    return page(name, heading, body);
  };
  return {
    names,
    page(name) {
      let html = rendered.get(name);
      if (!html) {
        html = render(name);
        rendered.set(name, html);
      }
      return html;
    },
  };
}
