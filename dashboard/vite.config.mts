import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const here = import.meta.dirname;

/**
 * The dashboard: dist/web/index.html and dist/web/assets/<name>-<hash>.js|css, served at / by the
 * API's own process (src/dashboard). `npm run build` runs it after `nest build`; `npx vite -c
 * dashboard/vite.config.mts` serves it with live reload, calling the API on localhost:3000.
 */
export default defineConfig({
  root: here,
  publicDir: false,
  // The guide page bundles docs/PROTECT-A-FORM.md (`import … from '@docs/PROTECT-A-FORM.md?raw'`).
  resolve: { alias: { '@docs': resolve(here, '../docs') } },
  logLevel: 'warn',
  build: {
    outDir: resolve(here, '../dist/web'),
    emptyOutDir: true,
    reportCompressedSize: false,
    // No inline assets: the pages' CSP allows files from this origin only.
    assetsInlineLimit: 0,
    rolldownOptions: {
      // React Router's and TanStack Query's "use client" lines mean nothing in a client-only bundle.
      onLog(level, log, handler) {
        if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/widget': 'http://localhost:3000' } },
});
