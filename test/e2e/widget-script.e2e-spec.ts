import { readFileSync, renameSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildWidget } from '../utils/widget-build';
import { expectError, startApp, TestApp } from '../utils/test-app';

const URL_PATH = '/widget/v1/gatehouse.js';

describe('GET /widget/v1/gatehouse.js (the embeddable widget, docs/PROTECT-A-FORM.md)', () => {
  let t: TestApp;
  let path: string;
  let built: Buffer;

  beforeAll(async () => {
    path = buildWidget();
    built = readFileSync(path);
    t = await startApp();
  });
  afterAll(() => t?.close());

  /** Fastify's inject: the body as sent, not decompressed by a client. */
  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET', url = URL_PATH) =>
    t.app.getHttpAdapter().getInstance().inject({ method, url, headers });

  it('serves the built script as a cacheable, cross-origin, non-sniffable script, outside the rate limits', async () => {
    const res = await get();
    expect({ status: res.statusCode, headers: res.headers }).toEqual({
      status: 200,
      headers: expect.objectContaining({
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        etag: expect.stringMatching(/^W\/"[\w-]{27}"$/),
        vary: 'Accept-Encoding',
        'cross-origin-resource-policy': 'cross-origin',
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
        'x-request-id': expect.any(String),
      }),
    });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.equals(built)).toBe(true);
    // A static asset: nothing counted, so no rate-limit headers.
    expect(Object.keys(res.headers).filter((h) => /ratelimit/i.test(h))).toEqual([]);
    expect(res.payload.startsWith('/*! Gatehouse widget v1.')).toBe(true);
  });

  it('sends it brotli- or gzip-compressed to clients that accept it, under one ETag', async () => {
    const plain = await get();
    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await get({ 'accept-encoding': 'gzip;q=1, br;q=0' });
    expect([br.headers['content-encoding'], gzip.headers['content-encoding']]).toEqual(['br', 'gzip']);
    expect(brotliDecompressSync(br.rawPayload).equals(built)).toBe(true);
    expect(gunzipSync(gzip.rawPayload).equals(built)).toBe(true);
    expect(new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(1);
    console.log(`gatehouse.js: ${built.length} bytes, gzip ${gzip.rawPayload.length}, brotli ${br.rawPayload.length}`);
  });

  it('answers a revalidation with its ETag 304 without a body, HEAD without a body, and ignores a cache-busting query', async () => {
    const { etag } = (await get()).headers as { etag: string };
    const revalidated = await get({ 'if-none-match': etag });
    expect({ status: revalidated.statusCode, body: revalidated.payload, etag: revalidated.headers.etag }).toEqual({
      status: 304,
      body: '',
      etag,
    });
    expect((await get({ 'if-none-match': '"something-else"' })).statusCode).toBe(200);
    const head = await get({}, 'HEAD');
    expect({ status: head.statusCode, body: head.payload, type: head.headers['content-type'] }).toEqual({
      status: 200,
      body: '',
      type: 'text/javascript; charset=utf-8',
    });
    expect((await get({}, 'GET', `${URL_PATH}?v=2026-11-25`)).rawPayload.equals(built)).toBe(true);
  });

  it('is not part of the API: not under /api/v1 and not in the OpenAPI document', async () => {
    expectError(await t.http.get(`/api/v1${URL_PATH}`), 404, 'not_found');
    const doc = await t.http.get('/docs-json').expect(200);
    expect(Object.keys(doc.body.paths).filter((p) => p.includes('gatehouse'))).toEqual([]);
  });

  it('answers 404 with what to do while the widget is not built, and serves it once it is there, without a restart', async () => {
    const aside = `${path}.aside`;
    renameSync(path, aside);
    try {
      const res = await t.http.get(URL_PATH);
      expectError(res, 404, 'not_found');
      expect(res.body.message).toContain('npm run build');
    } finally {
      renameSync(aside, path);
    }
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(built)).toBe(true);
  });
});
