import type { Verdict } from './types';

/** Every error this package throws. Messages never carry a nonce or an API key. */
export class GatehouseError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type ConfigurationErrorCode =
  'missing_api_key' | 'invalid_option' | 'invalid_api_key' | 'insufficient_permissions' | 'not_found' | 'invalid_idempotency_key';

/**
 * The verifier is set up wrongly: no key, a key Gatehouse refuses (401) or that lacks the `verify`
 * scope (403), a base URL without Gatehouse's API (404), a bad option. Never a verdict about a
 * visitor: fix the configuration. No failure policy turns it into an accepted form.
 */
export class GatehouseConfigurationError extends GatehouseError {
  constructor(
    override readonly code: ConfigurationErrorCode,
    message: string,
    /**
     * Gatehouse's HTTP status, when it answered. Not `status`: Express, Fastify and Koa answer an
     * error's `status` as their own, so a wrong key would reach the visitor as a 401 or 403 (and a
     * wrong `baseUrl` as a 404) instead of the 500 of a server that is set up wrongly.
     */
    readonly gatehouseStatus?: number,
    /** Gatehouse's X-Request-Id, when it answered. */
    readonly requestId?: string,
  ) {
    super(code, message);
  }
}

/** Thrown by `verifyOrThrow` for a verdict that is not accepted; the verdict is on it. */
export class GatehouseRefusedError extends GatehouseError {
  constructor(readonly verdict: Exclude<Verdict, { accepted: true }>) {
    super(
      verdict.outcome === 'invalid' ? verdict.reason : verdict.error,
      `Gatehouse verification refused: ${verdict.outcome} (${verdict.outcome === 'invalid' ? verdict.reason : verdict.error}): ${verdict.message}`,
    );
  }
}
