import type { FastifyRequest } from 'fastify';
import { endpointOf } from './request';

/** A request as endpointOf reads it: method, and Fastify's per-route options (config is one object per route). */
function request(method: string, url: string | undefined, config: object): FastifyRequest {
  return { method, endpoint: null, routeOptions: { url, config } } as unknown as FastifyRequest;
}

describe('endpointOf', () => {
  it('is the method and the route template', () => {
    expect(endpointOf(request('GET', '/api/v1/api-keys/:id', {}))).toBe('GET /api/v1/api-keys/:id');
  });

  it('names unmatched requests by method only, never by their raw URL', () => {
    const config = {};
    expect(endpointOf(request('GET', undefined, config))).toBe('GET (unmatched)');
    expect(endpointOf(request('DELETE', undefined, config))).toBe('DELETE (unmatched)');
  });

  it('tells the methods of a route apart even when they share its config', () => {
    const config = {};
    expect(endpointOf(request('GET', '/api/v1/things', config))).toBe('GET /api/v1/things');
    expect(endpointOf(request('POST', '/api/v1/things', config))).toBe('POST /api/v1/things');
    expect(endpointOf(request('GET', '/api/v1/things', config))).toBe('GET /api/v1/things');
  });

  it('names a HEAD request by the GET endpoint it shares a counter with', () => {
    const config = {};
    expect(endpointOf(request('HEAD', '/api/v1/things', config))).toBe('GET /api/v1/things');
    expect(endpointOf(request('GET', '/api/v1/things', config))).toBe('GET /api/v1/things');
    expect(endpointOf(request('HEAD', undefined, {}))).toBe('GET (unmatched)');
  });

  it('answers a request the same each time it is asked', () => {
    const req = request('POST', '/api/v1/widget/nonces', {});
    expect(endpointOf(req)).toBe('POST /api/v1/widget/nonces');
    expect(endpointOf(req)).toBe(endpointOf(req));
    expect(req.endpoint).toBe('POST /api/v1/widget/nonces');
  });
});
