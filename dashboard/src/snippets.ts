/** How to use a key, as docs/PROTECT-A-FORM.md shows it, with this Gatehouse's address (`origin`) filled in. */

/** The script tag and the element that go in the form's page (the widget key is public). */
export const widgetSnippet = (origin: string, widgetKey: string): string =>
  `<script src="${origin}/widget/v1/gatehouse.js" defer></script>\n<div class="gatehouse-widget" data-key="${widgetKey}"></div>`;

/** The server's call before it acts on a form: is its nonce valid? */
export const verifySnippet = (origin: string, verifyKey: string): string =>
  `curl -s ${origin}/api/v1/nonces/verify -H 'x-api-key: ${verifyKey}' \\\n  -H 'content-type: application/json' -d '{"nonce":"…the gatehouse-nonce field of the form…"}'`;
