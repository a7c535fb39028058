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

type Outcome<U> = { readonly verdict: StrategyVerdict<U> } | { readonly error: unknown };

/**
 * Runs one passport strategy on a request the way `passport.authenticate(name, options, callback)`
 * does for a single strategy: a per-request object whose prototype is the strategy, given
 * success/fail/error, then `authenticate(req)`. What it leaves out is the middleware around that
 * (strategy look-up, multi-strategy failure lists, `req.logIn`, the Promise and option merging of
 * @nestjs/passport's AuthGuard) — on the API-key path that machinery cost more than the
 * authentication itself (docs/BENCHMARKS.md). The strategies, their extraction and their verify
 * callbacks are passport's and @nestjs/passport's own.
 *
 * A strategy that decides before `authenticate` returns (a cached API key) gets its verdict
 * returned, or its error thrown, at once: no promise, and no await in the guard behind it
 * (docs/PERFORMANCE.md, "Synchronous verdicts for cached keys"). Otherwise the result is a promise of the
 * verdict. The first decision counts; later calls of success/fail/error are ignored.
 */
export function authenticateWith<U>(strategy: Strategy, req: object): StrategyVerdict<U> | Promise<StrategyVerdict<U>> {
  let outcome: Outcome<U> | undefined;
  let settle: ((o: Outcome<U>) => void) | undefined; // set once the strategy has returned undecided
  const decide = (o: Outcome<U>) => {
    if (outcome !== undefined) return;
    outcome = o;
    settle?.(o);
  };
  const run = Object.create(strategy) as Strategy & StrategyActions;
  run.success = (user, info) => decide({ verdict: { user: user as U, info } });
  // passport hands the callback the challenge of a single failed strategy as `info`.
  run.fail = (challenge) => decide({ verdict: { user: false, info: typeof challenge === 'number' ? undefined : challenge } });
  run.error = (error) => decide({ error });
  run.pass = () => decide({ verdict: { user: false } });
  run.redirect = () => decide({ error: new Error(`a passport strategy asked for a redirect`) });
  try {
    run.authenticate(req as never, {});
  } catch (error) {
    decide({ error });
  }
  if (outcome !== undefined) return unwrap(outcome);
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rejects with what the strategy passed to error(), as passport does
    settle = (o) => ('error' in o ? reject(o.error) : resolve(o.verdict));
  });
}

function unwrap<U>(o: Outcome<U>): StrategyVerdict<U> {
  if ('error' in o) throw o.error;
  return o.verdict;
}

type VerifyDone<U> = (err: Error | null, user?: U | false) => void;

/**
 * A passport verify callback for `validate`: calls `done` before returning when `validate`
 * answers synchronously (or throws), and once its promise settles otherwise. @nestjs/passport's
 * own callback awaits `validate` even when it returned a plain value, which made every cached
 * API key wait for a chain of microtasks.
 */
export function verifyWith<A, U>(validate: (arg: A) => U | Promise<U>): (arg: A, done: VerifyDone<U>) => void {
  return (arg, done) => {
    let result: U | Promise<U>;
    try {
      result = validate(arg);
    } catch (err) {
      return done(err as Error, false);
    }
    if (result instanceof Promise)
      result.then(
        (user) => done(null, user),
        (err: Error) => done(err, false),
      );
    else done(null, result);
  };
}
