import type { FastifyReply } from 'fastify';
import { RateLimitState, toRateLimitState, writeRateLimitHeaders } from './rate-limit-headers';

/** Records headers as Fastify keeps them: by lower-cased name (HTTP names are case-insensitive). */
function fakeReply(): { reply: FastifyReply; headers: Map<string, unknown>; calls: string[] } {
  const headers = new Map<string, unknown>();
  const calls: string[] = [];
  const reply = {
    header(name: string, value: unknown) {
      calls.push(name.toLowerCase());
      headers.set(name.toLowerCase(), value);
      return this;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers, calls };
}

const record = (totalHits: number, timeToExpire: number, isBlocked: boolean) => ({
  totalHits,
  timeToExpire,
  isBlocked,
  timeToBlockExpire: isBlocked ? timeToExpire : 0,
});

describe('toRateLimitState', () => {
  it('reports what is left in the window after this request', () => {
    expect(toRateLimitState(60, record(1, 59, false))).toEqual({ limit: 60, remaining: 59, resetSeconds: 59, exceeded: false });
    expect(toRateLimitState(60, record(60, 3, false))).toEqual({ limit: 60, remaining: 0, resetSeconds: 3, exceeded: false });
  });

  it('never reports a negative remaining or reset once over the limit', () => {
    const s = toRateLimitState(60, record(75, -1, true));
    expect(s.remaining).toBe(0);
    expect(s.resetSeconds).toBe(0);
    expect(s.exceeded).toBe(true);
  });
});

describe('writeRateLimitHeaders', () => {
  const allowed: RateLimitState = { limit: 120, remaining: 117, resetSeconds: 42, exceeded: false };

  it('writes the X-RateLimit fields and the IETF fields from the same numbers', () => {
    const { reply, headers } = fakeReply();
    writeRateLimitHeaders(reply, allowed);
    expect(Object.fromEntries(headers)).toEqual({
      'x-ratelimit-limit': 120,
      'x-ratelimit-remaining': 117,
      'x-ratelimit-reset': 42,
      'ratelimit-policy': '"default";q=120;w=60',
      ratelimit: '"default";r=117;t=42',
    });
  });

  it('adds Retry-After only when the limit is exceeded', () => {
    const { reply, headers } = fakeReply();
    writeRateLimitHeaders(reply, { limit: 120, remaining: 0, resetSeconds: 42, exceeded: true });
    expect(headers.get('retry-after')).toBe(42);
    expect(headers.get('ratelimit')).toBe('"default";r=0;t=42');
  });

  it('never tells a refused client to retry after less than one second', () => {
    const { reply, headers } = fakeReply();
    writeRateLimitHeaders(reply, { limit: 5, remaining: 0, resetSeconds: 0, exceeded: true });
    expect(headers.get('retry-after')).toBe(1);
    expect(headers.get('x-ratelimit-reset')).toBe(0);
  });

  it('does not write Retry-After on an allowed request even at zero remaining', () => {
    const { reply, calls } = fakeReply();
    writeRateLimitHeaders(reply, { limit: 5, remaining: 0, resetSeconds: 10, exceeded: false });
    expect(calls).not.toContain('retry-after');
    expect(calls).toHaveLength(5);
  });
});
