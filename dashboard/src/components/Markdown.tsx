import { Fragment } from 'react';
import { Block, Inline, parseMarkdown } from '../markdown';

function Inlines({ content }: { content: Inline[] }) {
  return (
    <>
      {content.map((part, i) => {
        if (part.kind === 'code') return <code key={i}>{part.text}</code>;
        if (part.kind === 'strong') return <strong key={i}>{part.text}</strong>;
        if (part.kind === 'link') {
          // Only web links and in-page anchors become links; a relative path into the repository stays text.
          if (/^(https?:|#)/.test(part.href))
            return (
              <a key={i} href={part.href}>
                {part.text}
              </a>
            );
          return <Fragment key={i}>{part.text}</Fragment>;
        }
        return <Fragment key={i}>{part.text}</Fragment>;
      })}
    </>
  );
}

function BlockView({ block }: { block: Block }) {
  switch (block.kind) {
    case 'heading': {
      // The document's levels as they are: its title (#) is the page's h1 (skipTitle), its sections h2.
      const Tag = `h${block.level}` as 'h2';
      return (
        <Tag id={block.id}>
          <Inlines content={block.content} />
        </Tag>
      );
    }
    case 'paragraph':
      return (
        <p>
          <Inlines content={block.content} />
        </p>
      );
    case 'code':
      return (
        <pre tabIndex={0}>
          <code>{block.code}</code>
        </pre>
      );
    case 'list':
      return (
        <ul>
          {block.items.map((item, i) => (
            <li key={i}>
              <Inlines content={item} />
            </li>
          ))}
        </ul>
      );
    case 'table':
      return (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <thead>
              <tr>
                {block.head.map((cell, i) => (
                  <th key={i} scope="col">
                    <Inlines content={cell} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, i) => (
                    <td key={i}>
                      <Inlines content={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

/** A Markdown document (markdown.ts) as React elements; `skipTitle` leaves out its first heading, the page's own title. */
export function Markdown({ source, skipTitle = false }: { source: string; skipTitle?: boolean }) {
  const blocks = parseMarkdown(source);
  const shown = skipTitle && blocks[0]?.kind === 'heading' ? blocks.slice(1) : blocks;
  return (
    <>
      {shown.map((block, i) => (
        <BlockView key={i} block={block} />
      ))}
    </>
  );
}
