import guide from '@docs/PROTECT-A-FORM.md?raw';
import { Markdown } from '../components/Markdown';
import { PageTitle } from '../components/PageTitle';

/** The guide's stand-in for a customer's Gatehouse: this dashboard's own address replaces it. */
const EXAMPLE_GATEHOUSE = 'https://gatehouse.example.com';

/**
 * docs/PROTECT-A-FORM.md, bundled at build time into this page's own chunk (routes.tsx loads it
 * lazily, off the first load), with this Gatehouse's address in its examples.
 */
export function GuidePage() {
  const title = /^#\s+(.*)$/m.exec(guide)?.[1] ?? 'Protect a form';
  return (
    <article className="guide">
      <PageTitle>{title}</PageTitle>
      <p className="notice">
        The examples use this Gatehouse's address, {window.location.origin}. On the API keys page, "Protect a form" makes the keys and tries
        the widget for you.
      </p>
      <Markdown source={guide.replaceAll(EXAMPLE_GATEHOUSE, window.location.origin)} skipTitle />
    </article>
  );
}
