import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Reply, Request } from './request';

export type Encoding = 'br' | 'gzip' | 'identity';

/** One build of a file, in each encoding, with its validator. */
export interface BuiltVersion {
  /** Weak: one validator for every encoding of the same script (RFC 9110 §8.8.1). */
  readonly etag: string;
  readonly bodies: Readonly<Record<Encoding, Buffer>>;
}

/**
 * A file `npm run build` writes (the widget script, the dashboard's page), read and compressed once
 * per build: the file is looked at (stat) on every request, so a build next to a running dev server
 * is served without a restart, and a missing file is an answer (404), not a crash.
 */
export class BuiltFile {
  private cached?: { readonly mtimeMs: number; readonly size: number; readonly version: BuiltVersion };

  constructor(readonly path: string) {}

  /** The current build, or undefined when there is none (not built). */
  current(): BuiltVersion | undefined {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) return undefined;
    if (this.cached !== undefined && this.cached.mtimeMs === stat.mtimeMs && this.cached.size === stat.size) return this.cached.version;
    const identity = readFileSync(this.path);
    const version: BuiltVersion = {
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

/**
 * Answers one build of a file: its validator, 304 when the client holds it already, else the body in
 * the best encoding the client accepts. The caller sets the type and caching headers. With another
 * status than 200 (the dashboard's page answering an unknown path with 404) there is no validator.
 */
export function sendBuilt(req: Request, reply: Reply, version: BuiltVersion, status = 200): void {
  reply.header('vary', 'Accept-Encoding').header('x-content-type-options', 'nosniff');
  if (status === 200) {
    reply.header('etag', version.etag);
    if (matchesEtag(req.headers['if-none-match'], version.etag)) return void reply.status(304).send();
  }
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  reply.status(status).send(version.bodies[encoding]);
}
