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
})();
