/**
 * The few Markdown constructs the docs the dashboard shows use (docs/PROTECT-A-FORM.md): headings,
 * paragraphs, fenced code, "-" lists, tables, and inline code, **bold** and [links](url). Parsed
 * into plain data that `Markdown.tsx` draws as React elements (never as HTML, so nothing in the
 * text can become markup). Anything else stays as text; src/dashboard/guide-markdown.spec.ts fails
 * when the guide uses a construct this does not know.
 */

export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'strong'; readonly text: string }
  | { readonly kind: 'link'; readonly text: string; readonly href: string };

export type Block =
  | { readonly kind: 'heading'; readonly level: number; readonly id: string; readonly content: Inline[] }
  | { readonly kind: 'paragraph'; readonly content: Inline[] }
  | { readonly kind: 'code'; readonly lang: string; readonly code: string }
  | { readonly kind: 'list'; readonly items: Inline[][] }
  | { readonly kind: 'table'; readonly head: Inline[][]; readonly rows: Inline[][][] };

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    if (m[1] !== undefined) out.push({ kind: 'code', text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: 'strong', text: m[2] });
    else out.push({ kind: 'link', text: m[3], href: m[4] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/** The cells of a table row `| a | b |`; a `|` inside backticks stays in its cell. */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out: string[] = [];
  let cell = '';
  let inCode = false;
  for (const ch of inner) {
    if (ch === '`') inCode = !inCode;
    if (ch === '|' && !inCode) {
      out.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  out.push(cell.trim());
  return out;
}

/** An anchor for a heading: "## 3. Verify on your server" → "3-verify-on-your-server". */
export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const FENCE = /^```(\S*)\s*$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const ITEM = /^[-*]\s+(.*)$/;
const TABLE_RULE = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const starts = (line: string) => FENCE.test(line) || HEADING.test(line) || ITEM.test(line) || line.trimStart().startsWith('|');
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !/^```\s*$/.test(lines[i])) code.push(lines[i++]);
      i++; // the closing fence
      blocks.push({ kind: 'code', lang: fence[1], code: code.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1].length, id: slug(heading[2]), content: parseInline(heading[2]) });
      i++;
      continue;
    }
    if (line.trimStart().startsWith('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      const head = cells(line).map(parseInline);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && lines[i].trimStart().startsWith('|')) rows.push(cells(lines[i++]).map(parseInline));
      blocks.push({ kind: 'table', head, rows });
      continue;
    }
    if (ITEM.test(line)) {
      const items: string[] = [];
      while (i < lines.length && (ITEM.test(lines[i]) || (items.length > 0 && /^\s+\S/.test(lines[i])))) {
        const item = ITEM.exec(lines[i]);
        if (item) items.push(item[1]);
        else items[items.length - 1] += ` ${lines[i].trim()}`;
        i++;
      }
      blocks.push({ kind: 'list', items: items.map(parseInline) });
      continue;
    }
    const text: string[] = [];
    while (i < lines.length && lines[i].trim() !== '' && (text.length === 0 || !starts(lines[i]))) text.push(lines[i++].trim());
    blocks.push({ kind: 'paragraph', content: parseInline(text.join(' ')) });
  }
  return blocks;
}
