import { defineConfig } from 'tsup';

/** ESM (.js) and CommonJS (.cjs) with their types (.d.ts, .d.cts), one file an entry point; frameworks stay imports. */
export default defineConfig({
  entry: ['src/index.ts', 'src/express.ts', 'src/fastify.ts', 'src/hono.ts', 'src/nestjs.ts', 'src/next.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false } },
  tsconfig: 'tsconfig.build.json',
  target: 'es2022',
  platform: 'neutral',
  external: ['@nestjs/common', 'fastify', 'hono', 'express'],
  splitting: true, // one copy of the core and its error classes, shared by every entry point (instanceof holds across them)
  clean: true,
  sourcemap: false,
  treeshake: true,
});
