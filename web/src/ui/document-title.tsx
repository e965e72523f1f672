/**
 * The browser tab's and the history's name for the screen: its heading, then the product, so a
 * screen reader announces where a link led and a person with ten tabs open finds the Mail one.
 * React 19 hoists a <title> rendered anywhere into the document's head (it stands before the
 * static one of index.html, so it is the document's title while the screen shows).
 */
export function DocumentTitle({ screen }: { screen: string }) {
  return <title>{`${screen} · Porchlight`}</title>;
}
