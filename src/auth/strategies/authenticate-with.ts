import type { Strategy } from 'passport-strategy';

/** What a passport strategy decided: a user, or none (with the strategy's challenge or info). */
export type StrategyVerdict<U> = { readonly user: U; readonly info?: unknown } | { readonly user: false; readonly info?: unknown };

interface StrategyActions {
  success(user: unknown, info?: unknown): void;
  fail(challenge?: unknown, status?: number): void;
  error(err: unknown): void;
  redirect(url: string, status?: number): void;
  pass(): void;
}

/**
 * Runs one passport strategy on a request the way `passport.authenticate(name, options, callback)`
 * does for a single strategy: a per-request object whose prototype is the strategy, given
 * success/fail/error, then `authenticate(req)`. What it leaves out is the middleware around that
 * (strategy look-up, multi-strategy failure lists, `req.logIn`, the Promise and option merging of
 * @nestjs/passport's AuthGuard) — on the API-key path that machinery cost more than the
 * authentication itself (docs/BENCHMARKS.md). The strategies, their extraction and their verify
 * callbacks are passport's and @nestjs/passport's own.
 */
export function authenticateWith<U>(strategy: Strategy, req: object): Promise<StrategyVerdict<U>> {
  return new Promise((resolve, reject) => {
    const run = Object.create(strategy) as Strategy & StrategyActions;
    run.success = (user, info) => resolve({ user: user as U, info });
    // passport hands the callback the challenge of a single failed strategy as `info`.
    run.fail = (challenge) => resolve({ user: false, info: typeof challenge === 'number' ? undefined : challenge });
    run.error = reject;
    run.pass = () => resolve({ user: false });
    run.redirect = () => reject(new Error(`a passport strategy asked for a redirect`));
    try {
      run.authenticate(req as never, {});
    } catch (err) {
      reject(err);
    }
  });
}
