import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { webhookVerifySnippet } from '../../dashboard/src/snippets';

describe("the webhooks page's verification snippet", () => {
  it('is the receiver docs/WEBHOOKS.md shows under "Verify a delivery", and holds no secret', () => {
    const docs = readFileSync(resolve(__dirname, '../..', 'docs/WEBHOOKS.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Verify a delivery'));
    const block = /```js\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(block).toBeDefined();
    expect(webhookVerifySnippet()).toBe(block);
    expect(webhookVerifySnippet()).not.toMatch(/whsec_[A-Za-z0-9+/]/);
  });
});
