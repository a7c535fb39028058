import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CounterChild, CounterFamily, HistogramChild, HistogramFamily } from './families';

const LATENCY_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** endpointOf's route part for a request no route matched. */
const UNMATCHED = '(unmatched)';
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** A route's counters, one per status class (index: status / 100 - 1). */
type RouteChildren = ReadonlyArray<{ readonly requests: CounterChild; readonly latency: HistogramChild }>;

export type TrackerKind = 'apiKey' | 'user' | 'ip';
/** The widget events analytics counts (usage.recorder.ts's WIDGET_EVENTS; a new one there fails to compile until added here). */
export type WidgetEvent = 'challenge_issued' | 'challenge_solved' | 'challenge_failed' | 'nonce_valid' | 'nonce_invalid';
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed';

/**
 * Gatehouse's Prometheus metrics (README, "Metrics"). Counting is always on and costs an addition;
 * the registry is only served, and prom-client's process metrics only collected, when METRICS_TOKEN
 * or METRICS_PORT is set. No label holds a key, user, account, e-mail or IP: routes are templates,
 * trackers are kinds.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly httpRequests = new CounterFamily(
    'gatehouse_http_requests_total',
    'HTTP requests answered, by method, route template and status class.',
    ['method', 'route', 'status_class'],
  );
  private readonly httpLatency = new HistogramFamily(
    'gatehouse_http_request_duration_seconds',
    'Time from the request to its answer, by method, route template and status class.',
    ['method', 'route', 'status_class'],
    LATENCY_BOUNDS,
  );
  private readonly rateLimit = new CounterFamily(
    'gatehouse_rate_limit_decisions_total',
    'Rate-limit decisions, by tracker kind (apiKey, user, ip) and decision (allowed, refused).',
    ['tracker', 'decision'],
  );
  private readonly challenges = new CounterFamily(
    'gatehouse_widget_challenges_total',
    'Widget proof-of-work challenges, by result (issued, solved, failed).',
    ['result'],
  );
  private readonly derivations = new CounterFamily(
    'gatehouse_widget_derivations_total',
    'PBKDF2 key derivations made for widget and sign-up challenges (one a challenge, never for a refused request).',
    [],
  );
  private readonly derivationCount = this.derivations.labels();
  private readonly nonces = new CounterFamily(
    'gatehouse_nonces_verified_total',
    'Nonces verified by servers, by result (valid, invalid).',
    ['result'],
  );
  private readonly webhooks = new CounterFamily(
    'gatehouse_webhook_deliveries_total',
    'Webhook delivery attempts, by outcome (delivered; retrying: failed, another attempt is due; failed: no attempt left).',
    ['outcome'],
  );
  private readonly cacheLookups = new CounterFamily(
    'gatehouse_cache_lookups_total',
    'In-process cache look-ups, by cache (apiKeyHash: API keys, user: signed-in users, account: plans and limits) and result (hit, miss).',
    ['cache', 'result'],
  );
  private readonly dbQueryFamily = new HistogramFamily(
    'gatehouse_db_query_duration_seconds',
    'Database statements issued through Prisma, their duration.',
    [],
    LATENCY_BOUNDS,
  );
  /** Prisma's query events: every statement, its time as Prisma measures it. */
  readonly dbQueries = this.dbQueryFamily.labels();
  private readonly redisCalls = new HistogramFamily(
    'gatehouse_redis_call_duration_seconds',
    'Redis calls, by call (rate-limit batch, nonce claim), their duration.',
    ['call'],
    LATENCY_BOUNDS,
  );

  private readonly routes = new Map<string, RouteChildren>();
  private readonly trackers: Record<TrackerKind, readonly [CounterChild, CounterChild]>;
  private readonly widgetEvents: Record<WidgetEvent, CounterChild>;
  private readonly webhookOutcomes: Record<WebhookOutcome, CounterChild>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.enabled = config.metrics.token !== undefined || config.metrics.port !== undefined;
    const bind = (kind: TrackerKind) => [this.rateLimit.labels(kind, 'allowed'), this.rateLimit.labels(kind, 'refused')] as const;
    this.trackers = { apiKey: bind('apiKey'), user: bind('user'), ip: bind('ip') };
    this.widgetEvents = {
      challenge_issued: this.challenges.labels('issued'),
      challenge_solved: this.challenges.labels('solved'),
      challenge_failed: this.challenges.labels('failed'),
      nonce_valid: this.nonces.labels('valid'),
      nonce_invalid: this.nonces.labels('invalid'),
    };
    this.webhookOutcomes = {
      delivered: this.webhooks.labels('delivered'),
      retrying: this.webhooks.labels('retrying'),
      failed: this.webhooks.labels('failed'),
    };
    if (!this.enabled) return;
    for (const family of [
      this.httpRequests,
      this.httpLatency,
      this.rateLimit,
      this.challenges,
      this.derivations,
      this.nonces,
      this.webhooks,
      this.cacheLookups,
      this.dbQueryFamily,
      this.redisCalls,
    ])
      this.registry.registerMetric(family as unknown as Metric);
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /**
   * One answered request, by its endpoint (endpointOf: "METHOD /route/template", one string object
   * per route, already made for the limiter and usage, so nothing is built here per request).
   */
  request(endpoint: string, status: number, seconds: number): void {
    let children = this.routes.get(endpoint);
    if (children === undefined) {
      const space = endpoint.indexOf(' ');
      const method = endpoint.slice(0, space);
      const route = endpoint.slice(space + 1);
      const label = route === UNMATCHED ? 'unmatched' : route;
      children = STATUS_CLASSES.map((c) => ({
        requests: this.httpRequests.labels(method, label, c),
        latency: this.httpLatency.labels(method, label, c),
      }));
      this.routes.set(endpoint, children);
    }
    const c = children[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1];
    c.requests.value += 1;
    c.latency.observe(seconds);
  }

  rateLimitDecision(tracker: TrackerKind, refused: boolean): void {
    this.trackers[tracker][refused ? 1 : 0].value += 1;
  }

  widgetEvent(event: WidgetEvent): void {
    this.widgetEvents[event].value += 1;
  }

  /** One proof-of-work derivation (a challenge issued). */
  derivation(): void {
    this.derivationCount.value += 1;
  }

  webhookDelivery(outcome: WebhookOutcome): void {
    this.webhookOutcomes[outcome].value += 1;
  }

  /** The hit and miss counters of one cache, to keep and count on. */
  cache(name: string): { readonly hit: CounterChild; readonly miss: CounterChild } {
    return { hit: this.cacheLookups.labels(name, 'hit'), miss: this.cacheLookups.labels(name, 'miss') };
  }

  redisCall(call: 'rate-limit-batch' | 'nonce-claim'): HistogramChild {
    return this.redisCalls.labels(call);
  }
}
