import { resolve } from 'node:path';

/** Where `npm run build` puts the dashboard (dashboard/vite.config.mts): index.html and assets/. */
export const DASHBOARD_DIR = resolve(__dirname, '../../dist/web');

/**
 * The dashboard's pages (dashboard/src/routes.tsx): each answers its index.html, so a reload or a
 * link from an e-mail opens the page. Any other path keeps the API's JSON 404.
 */
export const DASHBOARD_PAGES = [
  '',
  'sign-in',
  'sign-up',
  'forgot-password',
  'reset-password',
  'accept-invitation',
  'confirm-email',
  'keys',
  'webhooks',
  'team',
  'analytics',
  'audit',
  'settings',
  'profile',
  'security',
  'guide',
] as const;

/** The route path of a hashed build asset (dashboard/vite.config.mts names them). */
export const DASHBOARD_ASSET_ROUTE = 'assets/:file';

/**
 * What a browser may do on a dashboard page: its own scripts, styles and API only. No inline script
 * or style, no framing, no plug-ins; fetches only to this origin (the API). Images: this origin and
 * data: URLs (chart legends, the icon). Workers: this origin's files (sign-up's solver) and blob:
 * URLs, which the widget (/widget/v1/gatehouse.js, run by the keys page's "Try it") starts its
 * solvers from, as on a customer's page (docs/PROTECT-A-FORM.md, "5. Content Security Policy").
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
