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
 * The binary with each built-in `name=value` argument (a NUL-terminated string) replaced by
 * `settings`' value, NUL-padded to the same length so nothing else moves; undefined unless every
 * one of them is there exactly once (another PGlite build).
 */
export function withSettings(wasm: Buffer, settings: Readonly<Record<string, string>>): Buffer | undefined {
  const out = Buffer.from(wasm);
  for (const [name, value] of Object.entries(settings)) {
    const builtIn = Buffer.from(`${name}=${BUILT_IN[name]}\0`);
    const at = out.indexOf(builtIn);
    const replacement = Buffer.alloc(builtIn.length);
    const written = replacement.write(`${name}=${value}`);
    if (BUILT_IN[name] === undefined || at < 0 || out.indexOf(builtIn, at + 1) >= 0 || written >= builtIn.length) return undefined;
    replacement.copy(out, at);
  }
  return out;
}

let compiled: Promise<WasmModule | undefined> | undefined;

/**
 * PGlite's WASM module with EMBEDDED_SETTINGS, compiled once per process (as PGlite caches its own),
 * or undefined where the binary does not hold the expected arguments: PGlite then loads its own.
 */
export function pgliteModule(): Promise<WasmModule | undefined> {
  compiled ??= (async () => {
    const file = join(dirname(require.resolve('@electric-sql/pglite')), 'pglite.wasm');
    const wasm = withSettings(await readFile(file), EMBEDDED_SETTINGS);
    return wasm && WebAssembly.compile(wasm);
  })();
  return compiled;
}
