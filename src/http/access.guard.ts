import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AppError } from '../common/errors/app-error';
import { keyAllowsOrigin } from '../cors/origins';
import type { Reply, Request } from '../common/request';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { AuthRequirement, originRefusalFailsChallenge, requirementOf, skipsRateLimit } from '../common/auth.decorators';
import type { ApiKeyPrincipal } from '../common/principal';
import { UsageRecorder } from '../usage/usage.recorder';
import { ApiKeyUsageTracker } from '../api-keys/api-key-usage.tracker';
import { Authenticator, AuthVerdict } from '../auth/authenticator';
import { authorise } from './authorization';

/** docs/API.md, "Browser clients (CORS)": a browser call from an origin the key does not list. */
const ORIGIN_REFUSED = Object.freeze(new AppError('insufficient_permissions', 'This API key does not accept requests from this origin.'));

/**
 * The one app-wide guard: authenticate → count → authorise (docs/DECISIONS.md, "Request path: authenticate → rate limit → authorise").
 * Authentication hands its verdict on as a value, so the rate limiter counts — and writes headers
 * on — refused credentials too before authorisation throws the refusal. An API key's `lastUsedAt`
 * is touched only once the request is accepted: a request its own checks (revoked, expired, origin,
 * scope) or the rate limit refuse is no use of the key.
 *
 * A cached API key is decided synchronously, so the request's only promise is the counter's
 * answer, with authorisation run in its reaction; a route the limiter skips is decided without
 * any promise.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly serviceOrigins: ReadonlySet<string>;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly rateLimiter: RateLimiter,
    private readonly keyUsage: ApiKeyUsageTracker,
    private readonly usage: UsageRecorder,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.serviceOrigins = new Set(config.serviceOrigins);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.getArgByIndex<Request>(0); // switchToHttp() assigns three methods per call
    const requirement = requirementOf(context);
    const verdict = this.authenticator.authenticate(req, requirement);
    return verdict instanceof Promise
      ? verdict.then((v) => this.countThenAuthorise(context, req, requirement, v))
      : this.countThenAuthorise(context, req, requirement, verdict);
  }

  private countThenAuthorise(
    context: ExecutionContext,
    req: Request,
    requirement: AuthRequirement,
    verdict: AuthVerdict,
  ): boolean | Promise<boolean> {
    // A key used from a page it does not allow is refused like a bad credential, before it counts
    // against the key: a page elsewhere cannot spend the key's allowance. Analytics still show it.
    let refusedKey: ApiKeyPrincipal | undefined;
    if (
      verdict !== null &&
      !(verdict instanceof Error) &&
      verdict.kind === 'apiKey' &&
      !keyAllowsOrigin(verdict.allowedOrigins, req.headers.origin, this.serviceOrigins)
    ) {
      req.attributedTo = refusedKey = verdict;
      verdict = ORIGIN_REFUSED;
    }
    // The limiter's tracker: the principal, else the client IP (a refused credential counts per IP).
    const caller = (req.user = verdict instanceof Error ? null : verdict);
    // Usage analytics count a refused key whose owner is known (revoked, expired) for that owner.
    if (verdict instanceof AppError && verdict.attributedTo !== undefined) req.attributedTo = verdict.attributedTo;
    const decided = verdict;
    const authorised = () => {
      // Answered 403 for its origin (not 429): on a challenge route, a failed challenge in the widget's figures.
      if (refusedKey !== undefined && originRefusalFailsChallenge(context)) this.usage.challengeFailed(refusedKey, 'origin');
      authorise(requirement, decided);
      // Accepted: a use of the key (in memory, written in batches by ApiKeyUsageTracker).
      if (caller?.kind === 'apiKey') this.keyUsage.touch(caller.keyId, Date.now());
      return true as const;
    };
    if (skipsRateLimit(context)) return authorised();
    // Widget routes are called by every visitor of a site: each visitor (client IP) is limited too.
    const perVisitor = requirement.method === 'apiKey' && requirement.scope === 'widget' && caller !== null;
    return this.rateLimiter.count(req, context.getArgByIndex<Reply>(1), authorised, perVisitor);
  }
}
