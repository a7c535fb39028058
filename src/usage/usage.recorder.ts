import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ApiKeyPrincipal, Principal } from '../common/principal';
import { PrismaService } from '../prisma/prisma.service';
import { Metrics } from '../metrics/metrics';

export interface UsageHit {
  readonly principal: Principal;
  readonly endpoint: string;
  readonly status: number;
  readonly at: number;
}

/** What the widget counts beside requests (the widget figures of docs/API.md, "JWT endpoints"). */
export const WIDGET_EVENTS = ['challenge_issued', 'challenge_solved', 'challenge_failed', 'nonce_valid', 'nonce_invalid'] as const;
export type WidgetEvent = (typeof WIDGET_EVENTS)[number];

/**
 * Widget events are kept in the request counters' table as rows of status 0 (no answer has it) and
 * endpoint `widget:<event>`: the same buckets, writes and retention, told apart by that status.
 */
export const EVENT_STATUS = 0;
/** The endpoint of a widget row: an event (`widget:challenge_issued`) or a tally (`widget:solve_ms:500`). */
export const widgetEndpoint = (name: string): string => `widget:${name}`;
/** Why a verification answered invalid (its `reason`), tallied beside `nonce_invalid` as `widget:nonce_invalid:<reason>`. */
export const invalidNonceTally = (reason: 'unknown' | 'expired' | 'already_used'): string => `nonce_invalid:${reason}`;
/**
 * Why a challenge failed, tallied beside `challenge_failed` as `widget:challenge_failed:<reason>`:
 * `invalid` (wrong, forged, malformed or another key's), `expired` (solved, but exchanged after the
 * challenge expired), `already_used` (a solution exchanged before), `origin` (the challenge request
 * came from a page not among the key's allowed origins).
 */
export type ChallengeFailure = 'invalid' | 'expired' | 'already_used' | 'origin';
export const failedChallengeTally = (reason: ChallengeFailure): string => `challenge_failed:${reason}`;

export const USAGE_RETENTION_MS = 400 * 24 * 3600_000;

interface Bucket {
  readonly accountId: string;
  readonly subjectKind: 'apiKey' | 'user';
  readonly subjectId: string;
  readonly endpoint: string;
  readonly status: number;
  readonly minute: number;
  count: number;
}

const byBucketKey = (x: Bucket, y: Bucket): number =>
  x.subjectId < y.subjectId
    ? -1
    : x.subjectId > y.subjectId
      ? 1
      : x.endpoint < y.endpoint
        ? -1
        : x.endpoint > y.endpoint
          ? 1
          : x.status - y.status || x.minute - y.minute;

/**
 * Counts requests off the request path: `record` adds one to an in-memory bucket (account,
 * subject, endpoint, status, minute). Writing a bucket adds its count to the bucket's one row
 * (INSERT … ON CONFLICT DO UPDATE), so rows grow with traffic's variety, not with the number of
 * writes. When buckets are written:
 * - on PostgreSQL, which several instances share: all of them every USAGE_FLUSH_INTERVAL_MS (5 s),
 *   so analytics on any instance sees every instance's counts within that;
 * - on the embedded database, which only this process reads: a bucket once its minute is over
 *   (looked for every interval), once instead of twelve times, as the write runs on the event loop
 *   that answers requests;
 * - on both, all of them before analytics reads (`flush`) and at shutdown.
 * A failed write is merged back and retried with the next one; requests never wait for it.
 */
@Injectable()
export class UsageRecorder implements OnModuleInit {
  private readonly logger = new Logger(UsageRecorder.name);
  /**
   * Subject → endpoint → its buckets (one per status and minute, a handful). Nested maps, not one
   * map keyed by a string of all five: building and hashing that string on every request cost
   * five times the look-up (docs/PERFORMANCE.md, "Usage writes").
   */
  private pending = new Map<string, Map<string, Bucket[]>>();
  private timer?: NodeJS.Timeout;
  private janitor?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const due = this.prisma.kind === 'embedded' ? 'closed' : 'all';
    this.timer = setInterval(() => void this.flush(due), this.config.usageFlushIntervalMs);
    this.timer.unref();
    this.janitor = setInterval(
      () => void this.purge().catch((err: Error) => this.logger.warn(`Usage purge failed: ${err.message}`)),
      3600_000,
    );
    this.janitor.unref();
  }

  record({ principal, endpoint, status, at }: UsageHit): void {
    const subjectId = principal.kind === 'apiKey' ? principal.keyId : principal.userId;
    this.bucket(principal.accountId, principal.kind, subjectId, endpoint, status, at - (at % 60_000)).count += 1;
  }

  /** Counts a widget event of the key, as `record` counts a request (nothing when USAGE_RECORDING=off), and in the metrics. */
  event(key: ApiKeyPrincipal, event: WidgetEvent, at = Date.now()): void {
    this.metrics.widgetEvent(event);
    if (!this.config.usageRecording) return;
    this.bucket(key.accountId, 'apiKey', key.keyId, widgetEndpoint(event), EVENT_STATUS, at - (at % 60_000)).count += 1;
  }

  /** A failed challenge of the key's, and why (failedChallengeTally). */
  challengeFailed(key: ApiKeyPrincipal, reason: ChallengeFailure, at = Date.now()): void {
    this.event(key, 'challenge_failed', at);
    this.tally(key, failedChallengeTally(reason), at);
  }

  /**
   * Counts one of the key's widget figures that analytics does not list as an event (a solve-time
   * bucket, a surged challenge): a row of status 0 and endpoint `widget:<name>`, like an event.
   */
  tally(key: ApiKeyPrincipal, name: string, at = Date.now()): void {
    if (!this.config.usageRecording) return;
    this.bucket(key.accountId, 'apiKey', key.keyId, widgetEndpoint(name), EVENT_STATUS, at - (at % 60_000)).count += 1;
  }

  private bucket(
    accountId: string,
    subjectKind: Bucket['subjectKind'],
    subjectId: string,
    endpoint: string,
    status: number,
    minute: number,
  ): Bucket {
    let byEndpoint = this.pending.get(subjectId);
    if (byEndpoint === undefined) this.pending.set(subjectId, (byEndpoint = new Map<string, Bucket[]>()));
    let buckets = byEndpoint.get(endpoint);
    if (buckets === undefined) byEndpoint.set(endpoint, (buckets = []));
    for (const b of buckets) if (b.status === status && b.minute === minute) return b;
    const bucket: Bucket = { accountId, subjectKind, subjectId, endpoint, status, minute, count: 0 };
    buckets.push(bucket);
    return bucket;
  }

  /**
   * Writes the pending buckets: all of them, or only those whose minute is over. Serialised, so a
   * slow write and the next tick never write the same buckets twice.
   */
  flush(which: 'all' | 'closed' = 'all'): Promise<void> {
    this.flushing = this.flushing.then(() => this.write(which));
    return this.flushing;
  }

  /** Removes and returns the buckets to write. */
  private take(which: 'all' | 'closed'): Bucket[] {
    const now = Date.now();
    const open = which === 'all' ? Infinity : now - (now % 60_000);
    const taken: Bucket[] = [];
    for (const [subjectId, byEndpoint] of this.pending) {
      for (const [endpoint, buckets] of byEndpoint) {
        const kept: Bucket[] = [];
        for (const b of buckets) (b.minute < open ? taken : kept).push(b);
        if (kept.length === buckets.length) continue;
        if (kept.length > 0) byEndpoint.set(endpoint, kept);
        else byEndpoint.delete(endpoint);
      }
      if (byEndpoint.size === 0) this.pending.delete(subjectId);
    }
    return taken;
  }

  private async write(which: 'all' | 'closed'): Promise<void> {
    // In the unique key's order: instances writing the same buckets at once then take their row
    // locks in one order, and cannot deadlock.
    const b = this.take(which).sort(byBucketKey);
    if (b.length === 0) return;
    try {
      // One INSERT of seven arrays, not createMany: with hundreds of buckets, Prisma's in-process
      // query compiler over thousands of parameters cost the request path ~20% (docs/BENCHMARKS.md).
      // A batch holds each bucket once, as ON CONFLICT DO UPDATE requires.
      await this.prisma.$executeRaw`
        INSERT INTO "UsageCounter" ("accountId", "subjectKind", "subjectId", "endpoint", "status", "minute", "count")
        SELECT a::uuid, k, s::uuid, e, st, (m::timestamptz AT TIME ZONE 'UTC'), c
        FROM unnest(${b.map((x) => x.accountId)}::text[], ${b.map((x) => x.subjectKind)}::text[], ${b.map((x) => x.subjectId)}::text[],
                    ${b.map((x) => x.endpoint)}::text[], ${b.map((x) => x.status)}::int[],
                    ${b.map((x) => new Date(x.minute).toISOString())}::text[], ${b.map((x) => x.count)}::int[])
             AS v(a, k, s, e, st, m, c)
        WHERE EXISTS (SELECT 1 FROM "Account" WHERE "id" = a::uuid) -- counts of a deleted account are dropped
        ON CONFLICT ("subjectId", "endpoint", "status", "minute") DO UPDATE SET "count" = "UsageCounter"."count" + EXCLUDED."count"`;
    } catch (err) {
      for (const x of b) this.bucket(x.accountId, x.subjectKind, x.subjectId, x.endpoint, x.status, x.minute).count += x.count;
      this.logger.warn(`Could not write ${b.length} usage buckets; will retry: ${(err as Error).message}`);
    }
  }

  /** Rows older than the longest analytics range (366 days) plus a margin are deleted hourly. */
  async purge(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.usageCounter.deleteMany({ where: { minute: { lt: new Date(now - USAGE_RETENTION_MS) } } });
    return count;
  }

  /** The last flush, once no request can arrive any more (see Lifecycle). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.janitor);
    await this.flush();
  }
}
