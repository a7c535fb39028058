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
      // React and React Router, about two thirds of the first load, in a chunk of their own: it changes
      // only when they are upgraded, so browsers keep it across our releases, and the app's own chunk
      // stays well under Vite's 500 kB warning. Pages off the first load path (analytics, the guide)
      // are loaded when opened (src/routes.tsx).
      output: { codeSplitting: { groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ }] } },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/widget': 'http://localhost:3000' } },
});
