import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Where `npm run build` puts the widget (widget/vite.config.mts): the same file from src/ (tests,
 * ts-node) and from dist/ (`npm start`, the Docker image).
 */
export const WIDGET_SCRIPT_PATH = resolve(__dirname, '../../dist/widget/gatehouse.js');

export type Encoding = 'br' | 'gzip' | 'identity';

/** One build of the script, in each encoding, with its validator. */
export interface ScriptVersion {
  /** Weak: one validator for every encoding of the same script (RFC 9110 §8.8.1). */
  readonly etag: string;
  readonly bodies: Readonly<Record<Encoding, Buffer>>;
}

/**
 * The built widget script, read and compressed once per build: the file is looked at (stat) on
 * every request, so a `npm run build:widget` next to a running dev server is served without a
 * restart, and a missing file is an answer (404), not a crash.
 */
export class WidgetScript {
  private cached?: { readonly mtimeMs: number; readonly size: number; readonly version: ScriptVersion };

  constructor(readonly path: string = WIDGET_SCRIPT_PATH) {}

  /** The current build, or undefined when there is none (the widget was not built). */
  current(): ScriptVersion | undefined {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) return undefined;
    if (this.cached !== undefined && this.cached.mtimeMs === stat.mtimeMs && this.cached.size === stat.size) return this.cached.version;
    const identity = readFileSync(this.path);
    const version: ScriptVersion = {
      etag: `W/"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`,
      bodies: {
        identity,
        gzip: gzipSync(identity, { level: 9 }),
        br: brotliCompressSync(identity, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
        }),
      },
    };
    this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, version };
    return version;
  }
}

/** The encoding to answer with for an Accept-Encoding header: br, else gzip, else none (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (acceptEncoding === undefined) return 'identity';
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}

/** Whether an If-None-Match header matches `etag` by weak comparison (RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
