// Every signed-in screen starts with the session and the organization (routes/tree.tsx, signedInRoute).
// The list of signed-out pages below mirrors the router's; test/web/early-reads.test.ts holds them together.
// Asked for here, as the page starts, they travel while the app's code downloads and runs instead of
// after it; api/early-reads.ts hands each answer to the first query that asks, once. Not on a
// signed-out visitor's pages or the operator's: nothing there reads them. (Not <link rel="preload">:
// a preload nobody takes stays in the page, and the first read after signing in would get its 401.)
(() => {
  const signedOut = /^\/app\/(sign-in|forgot-password|reset-password|invite|operator)(\/|$)/;
  if (signedOut.test(window.location.pathname)) return;
  // The body is read as soon as it arrives: read later, by the app, it would wait behind the app's
  // first render (a task of its own), and so would every screen's loader waiting on the session.
  const read = (path) =>
    fetch(path, { credentials: "same-origin" }).then(async (response) => ({
      response,
      body: await response.json().catch(() => undefined),
    }));
  window.__porchlightEarlyReads = {
    "/app/api/v1/session": read("/app/api/v1/session"),
    "/app/api/v1/organization": read("/app/api/v1/organization"),
  };

  // The screen's own code (its lazy route chunk and what that imports beyond the app's entry), asked
  // for now rather than once the app's code has run and the router has matched the URL. The build
  // writes each screen's route path and files below. A path with fewer parameters wins
  // (automations/new over automations/$automationId), as in the router.
  const screens = /* screen files: written by the build (web/screen-chunks.ts) */ [];
  const pattern = (route) =>
    new RegExp(`^/app/${route.replace(/^\/|\/$/g, "").replace(/\$[A-Za-z]+/g, "[^/]+")}/?$`);
  const parameters = (route) => (route.match(/\$/g) ?? []).length;
  const at = window.location.pathname.replace(/\/?$/, "/");
  const screen = screens
    .filter(({ path }) => pattern(path).test(at))
    .sort((a, b) => parameters(a.path) - parameters(b.path))[0];
  for (const file of screen?.files ?? []) {
    const link = document.createElement("link");
    // As the app's own preloads are, so the router's import and Vite's preload helper find these.
    link.rel = file.endsWith(".css") ? "preload" : "modulepreload";
    if (file.endsWith(".css")) link.as = "style";
    link.crossOrigin = "";
    link.href = file;
    document.head.appendChild(link);
  }
})();
