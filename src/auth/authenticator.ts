import { Injectable } from '@nestjs/common';
import { TokenExpiredError } from 'jsonwebtoken';
import type { Strategy } from 'passport-strategy';
import { AppError } from '../common/errors/app-error';
import type { Request } from '../common/request';
import type { AuthRequirement } from '../common/auth.decorators';
import { CHALLENGE } from '../common/errors/challenges';
import type { ApiKeyPrincipal, Principal, UserPrincipal } from '../common/principal';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { authenticateWith, StrategyVerdict } from './strategies/authenticate-with';
import { JwtStrategy } from './strategies/jwt.strategy';
import { BrowserSessionService } from '../credentials/browser-session.service';
import { sessionSecretOf } from '../credentials/session-cookie';
import { UserPrincipalService } from './user-principal.service';

/**
 * What authentication decided: the caller (null on a public route), or the error that refused its
 * credential. A refusal is a value, not a throw, because the rate limiter counts the request before
 * authorisation throws it (see AccessGuard). An error that is not an AppError (the database
 * failed) is kept as it is, so it answers 500 or 503, never 401.
 */
export type AuthVerdict = Principal | null | Error;

/**
 * Runs the route's declared method — passport-headerapikey or passport-jwt, through
 * `authenticateWith`. When the strategy decides at once (a cached API key) the verdict is returned
 * synchronously: no promise, and no await in the guard behind it (docs/PERFORMANCE.md,
 * "Synchronous verdicts for cached keys"). The returned promise never rejects.
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly apiKeyStrategy: ApiKeyStrategy,
    private readonly jwtStrategy: JwtStrategy,
    private readonly browserSessions: BrowserSessionService,
    private readonly users: UserPrincipalService,
  ) {}

  authenticate(req: Request, requirement: AuthRequirement): AuthVerdict | Promise<AuthVerdict> {
    if (requirement.method === 'none')
      return requirement.sessionCookie === true ? this.sessionCookieUser(req).then(undefined, refusal) : null;
    try {
      const principal = requirement.method === 'apiKey' ? this.apiKey(req) : this.bearer(req);
      return principal instanceof Promise ? principal.then(undefined, refusal) : principal;
    } catch (err) {
      return refusal(err);
    }
  }

  /**
   * The user of the live session the dashboard's cookie names, so that a route taking it counts per
   * user: many people behind one address (an office's NAT) would share one client IP's allowance.
   * Null without one (counted per client IP); the route itself answers the refusals.
   */
  private async sessionCookieUser(req: Request): Promise<Principal | null> {
    const secret = sessionSecretOf(req.headers.cookie);
    const userId = secret === undefined ? null : await this.browserSessions.liveUserOf(req, secret);
    return userId === null ? null : ((await this.users.find(userId))?.principal ?? null);
  }

  /**
   * Repeated X-Api-Key headers reach us joined with ", " (Node), which no key matches: they are
   * refused as an unknown key by the length check, before any look-up.
   */
  private apiKey(req: Request): Principal | Promise<Principal> {
    if (req.headers['x-api-key'] === undefined) {
      throw new AppError('missing_credentials', 'This endpoint needs an X-Api-Key header.').withChallenge(CHALLENGE.apiKey);
    }
    return judge<ApiKeyPrincipal>(this.apiKeyStrategy, req, apiKeyFailure, apiKeyPrincipal);
  }

  /**
   * Exactly one Authorization header holding `Bearer` and one token, nothing else (the scheme in any
   * case, RFC 7235 section 2.1); then jsonwebtoken's failures map onto RFC 6750 answers. Node keeps
   * only the first of repeated Authorization headers, and passport-jwt's pattern would take the
   * token out of `Bearer <token> junk`: both are refused here first.
   */
  private bearer(req: Request): Principal | Promise<Principal> {
    const sent = req.raw.headersDistinct.authorization;
    if (sent === undefined) {
      throw new AppError('missing_credentials', 'This endpoint needs an Authorization: Bearer <token> header.').withChallenge(
        CHALLENGE.bearer,
      );
    }
    if (sent.length !== 1 || !BEARER_CREDENTIALS.test(sent[0])) throw new AppError('invalid_token').withChallenge(CHALLENGE.invalidToken);
    return judge<UserPrincipal>(this.jwtStrategy, req, bearerFailure, bearerPrincipal);
  }
}

/** `Bearer` (any case), one or more spaces, one RFC 6750 b64token, and nothing after it. */
const BEARER_CREDENTIALS = /^bearer +[A-Za-z0-9\-._~+/]+=*$/i;

function refusal(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * `principalOf` the verdict of `strategy` on `req`, synchronously when the strategy decided
 * synchronously; an error of the strategy (thrown or rejected) goes through `failure` first.
 */
function judge<U>(
  strategy: Strategy,
  req: Request,
  failure: (err: unknown) => never,
  principalOf: (verdict: StrategyVerdict<U>) => Principal,
): Principal | Promise<Principal> {
  let verdict: StrategyVerdict<U> | Promise<StrategyVerdict<U>>;
  try {
    verdict = authenticateWith<U>(strategy, req);
  } catch (err) {
    failure(err);
  }
  return verdict instanceof Promise ? verdict.then(principalOf, failure) : principalOf(verdict);
}

function apiKeyPrincipal(verdict: StrategyVerdict<ApiKeyPrincipal>): Principal {
  if (verdict.user) return verdict.user;
  throw new AppError('invalid_api_key').withChallenge(CHALLENGE.apiKey);
}

function bearerPrincipal(verdict: StrategyVerdict<UserPrincipal>): Principal {
  if (verdict.user) return verdict.user;
  if (verdict.info instanceof TokenExpiredError) throw new AppError('token_expired').withChallenge(CHALLENGE.expiredToken);
  throw new AppError('invalid_token').withChallenge(CHALLENGE.invalidToken);
}

/**
 * A strategy's error, rethrown: a 401 AppError with the method's challenge; any other error as it
 * is — not a verdict on the credential (e.g. the database failed), so never a 401.
 */
function rethrowWithChallenge(challenge: string): (err: unknown) => never {
  return (err) => {
    if (!(err instanceof AppError)) throw err;
    throw err.status === 401 ? err.withChallenge(challenge) : err;
  };
}

const apiKeyFailure = rethrowWithChallenge(CHALLENGE.apiKey);
const bearerFailure = rethrowWithChallenge(CHALLENGE.invalidToken);
