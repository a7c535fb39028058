import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const here = import.meta.dirname;

/**
 * The widget as one classic script (IIFE): dist/widget/gatehouse.js, served at /widget/v1/gatehouse.js
 * (src/widget-script). Runs after `nest build`, which empties dist/; dist/widget/ also holds the
 * compiled src/widget/ module, so this build must not empty its directory.
 */
export default defineConfig({
  root: here,
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(here, '../dist/widget'),
    emptyOutDir: false,
    copyPublicDir: false,
    reportCompressedSize: false,
    lib: {
      entry: resolve(here, 'src/gatehouse.ts'),
      formats: ['iife'],
      name: 'GatehouseWidget',
      fileName: () => 'gatehouse.js',
    },
    rolldownOptions: {
      // ALTCHA's default worker factory reads import.meta.url, which an IIFE has not; src/gatehouse.ts
      // replaces that factory, so its `{}` stand-in is never used.
      checks: { emptyImportMeta: false },
      output: { postBanner: '/*! Gatehouse widget v1. Includes ALTCHA (MIT License, https://altcha.org). */' },
    },
  },
});
