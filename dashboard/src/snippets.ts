/** How to use a key, as docs/PROTECT-A-FORM.md shows it, with this Gatehouse's address (`origin`) filled in. */

/** The script tag and the element that go in the form's page (the widget key is public). */
export const widgetSnippet = (origin: string, widgetKey: string): string =>
  `<script src="${origin}/widget/v1/gatehouse.js" defer></script>\n<div class="gatehouse-widget" data-key="${widgetKey}" data-auto="onfocus"></div>`;

/** The server's call before it acts on a form: is its nonce valid? */
export const verifySnippet = (origin: string, verifyKey: string): string =>
  `curl -s ${origin}/api/v1/nonces/verify -H 'x-api-key: ${verifyKey}' \\\n  -H 'content-type: application/json' -d '{"nonce":"…the gatehouse-nonce field of the form…"}'`;

/**
 * A receiver that verifies each delivery with the `standardwebhooks` package (Node, Express), as
 * docs/WEBHOOKS.md, "Verify a delivery", has it: the secret is read from the environment, never written in.
 */
export const webhookVerifySnippet = (): string => `import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.GATEHOUSE_WEBHOOK_SECRET); // whsec_…
app.post('/hooks/gatehouse', express.raw({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = wh.verify(req.body, req.headers); // throws on a bad signature or a timestamp over 5 minutes off
  } catch {
    return res.status(400).end();
  }
  if (alreadyHandled(req.headers['webhook-id'])) return res.status(200).end();
  handle(event.type, event.data);
  res.status(200).end();
});`;
