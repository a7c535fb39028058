import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Block, Inline, parseMarkdown } from '../../dashboard/src/markdown';

/** The text a reader sees of a block: what the dashboard's Markdown component draws. */
function shown(block: Block): string[] {
  const text = (parts: Inline[]) => parts.map((p) => p.text).join('');
  switch (block.kind) {
    case 'heading':
    case 'paragraph':
      return [text(block.content)];
    case 'list':
      return block.items.map(text);
    case 'table':
      return [...block.head, ...block.rows.flat()].map(text);
    case 'code':
      return [];
  }
}

describe('the guide in the dashboard (docs/PROTECT-A-FORM.md at /guide)', () => {
  const source = readFileSync(resolve(__dirname, '../..', 'docs/PROTECT-A-FORM.md'), 'utf8');
  const blocks = parseMarkdown(source);

  it('draws every construct the guide uses: no Markdown syntax is left in what a reader sees', () => {
    const prose = blocks.flatMap(shown);
    expect(prose.length).toBeGreaterThan(20);
    for (const line of prose) expect(line).not.toMatch(/\*\*|`|^#|^\|| \| |^[-*] |\]\(/);
  });

  it('keeps every heading, code block and table of the guide', () => {
    const count = (kind: Block['kind']) => blocks.filter((b) => b.kind === kind).length;
    expect(count('heading')).toBe(source.match(/^#+ /gm)!.length);
    expect(count('code')).toBe(source.match(/^```/gm)!.length / 2);
    expect(count('table')).toBe(source.match(/^\|-/gm)!.length);
    const code = blocks.find((b) => b.kind === 'code' && b.lang === 'html');
    expect(code).toMatchObject({
      code: expect.stringContaining('<div class="gatehouse-widget" data-key="gh_…your widget key…" data-auto="onfocus"></div>'),
    });
  });

  it('reads inline code, bold and links, and keeps a | inside code in its table cell', () => {
    expect(parseMarkdown('A **nonce** in `code | here` and [a link](https://example.com).')).toEqual([
      {
        kind: 'paragraph',
        content: [
          { kind: 'text', text: 'A ' },
          { kind: 'strong', text: 'nonce' },
          { kind: 'text', text: ' in ' },
          { kind: 'code', text: 'code | here' },
          { kind: 'text', text: ' and ' },
          { kind: 'link', text: 'a link', href: 'https://example.com' },
          { kind: 'text', text: '.' },
        ],
      },
    ]);
    const [table] = parseMarkdown('| a | b |\n|---|---|\n| `x | y` | z |');
    expect(table).toEqual({
      kind: 'table',
      head: [[{ kind: 'text', text: 'a' }], [{ kind: 'text', text: 'b' }]],
      rows: [[[{ kind: 'code', text: 'x | y' }], [{ kind: 'text', text: 'z' }]]],
    });
  });
});
