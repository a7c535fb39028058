import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';

type WasmModule = NonNullable<PGliteOptions['wasmModule']>;
// Node's global; this project's TypeScript libs (ES2023, no DOM) do not declare it.
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };

/**
 * PGlite 0.3 starts PostgreSQL with `-c shared_buffers=128MB -c wal_buffers=4MB` built into its
 * WASM binary and has no option to change them. Both are allocated in the WASM memory, which never
 * shrinks: the 128 MB buffer pool alone was a quarter of the process (docs/DECISIONS.md, "Memory
 * footprint"). pgliteModule() compiles the binary with these arguments rewritten in place. Neither
 * setting is stored in the data directory: a database written with one size opens with another.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '8MB', wal_buffers: '1MB' };

const BUILT_IN: Readonly<Record<string, string>> = { shared_buffers: '128MB', wal_buffers: '4MB' };

/**
 * Rewrites, in `wasm`, each built-in `name=value` argument (a NUL-terminated string) to `settings`'
 * value, NUL-padded to the same length so nothing else moves. False, and `wasm` unchanged, unless
 * every one of them is there exactly once (another PGlite build) and the new value fits.
 */
export function applySettings(wasm: Buffer, settings: Readonly<Record<string, string>>): boolean {
  const edits = Object.entries(settings).map(([name, value]) => {
    const builtIn = Buffer.from(`${name}=${BUILT_IN[name]}\0`);
    const at = wasm.indexOf(builtIn);
    const replacement = Buffer.alloc(builtIn.length);
    const fits = replacement.write(`${name}=${value}`) < builtIn.length;
    return { at, replacement, ok: BUILT_IN[name] !== undefined && at >= 0 && wasm.indexOf(builtIn, at + 1) < 0 && fits };
  });
  if (!edits.every((e) => e.ok)) return false;
  for (const { at, replacement } of edits) replacement.copy(wasm, at);
  return true;
}

let compiled: Promise<WasmModule | undefined> | undefined;

/**
 * PGlite's WASM module with EMBEDDED_SETTINGS, compiled once per process (as PGlite caches its own),
 * or undefined where the binary does not hold the expected arguments: PGlite then loads its own.
 */
export function pgliteModule(): Promise<WasmModule | undefined> {
  compiled ??= (async () => {
    const file = join(dirname(require.resolve('@electric-sql/pglite')), 'pglite.wasm');
    const wasm = await readFile(file);
    return applySettings(wasm, EMBEDDED_SETTINGS) ? WebAssembly.compile(wasm) : undefined;
  })();
  return compiled;
}
