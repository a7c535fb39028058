import { JsonWebTokenError, sign, TokenExpiredError } from 'jsonwebtoken';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ExtractJwt, Strategy as JwtStrategy, VerifiedCallback } from 'passport-jwt';
import { Strategy } from 'passport-strategy';
import { authenticateWith, StrategyVerdict, verifyWith } from './authenticate-with';

/** What authenticateWith decides, as a promise whether it decided at once or later (the call itself is synchronous). */
function decided<U>(strategy: Strategy, req: object): Promise<StrategyVerdict<U>> {
  return new Promise((resolve) => resolve(authenticateWith<U>(strategy, req)));
}

type ApiKeyDone = (err: Error | null, user?: object | false, info?: object) => void;

const SECRET = 'a-test-secret-of-reasonable-length-0123456789';
const ACTIONS = ['success', 'fail', 'error', 'pass', 'redirect'] as const;

function apiKeyStrategy(verify: (key: string, done: ApiKeyDone) => void): HeaderAPIKeyStrategy {
  return new HeaderAPIKeyStrategy({ header: 'X-Api-Key', prefix: '' }, false, verify);
}

function withApiKey(key: string) {
  return { headers: { 'x-api-key': key } };
}

type JwtVerify = (payload: { sub: string }, done: VerifiedCallback) => void;

function jwtStrategy(verify: JwtVerify = (payload, done) => done(null, { id: payload.sub })) {
  return new JwtStrategy({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: SECRET, algorithms: ['HS256'] }, verify);
}

function withBearer(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

/** The own properties of a strategy, and their values, to compare before and after a run. */
function ownState(strategy: object): Array<[string, unknown]> {
  return Object.entries(Object.getOwnPropertyDescriptors(strategy)).map(([name, d]) => [name, d.value]);
}

describe('authenticateWith, with passport-headerapikey', () => {
  it('resolves the user that verify accepts, having given it the header value', async () => {
    const seen: string[] = [];
    const strategy = apiKeyStrategy((key, done) => {
      seen.push(key);
      done(null, { id: 'principal-1' });
    });

    await expect(decided(strategy, withApiKey('gh_secret'))).resolves.toEqual({ user: { id: 'principal-1' } });
    expect(seen).toEqual(['gh_secret']);
  });

  it('resolves no user when verify refuses the key', async () => {
    const strategy = apiKeyStrategy((_key, done) => done(null, false));
    await expect(decided(strategy, withApiKey('gh_unknown'))).resolves.toEqual({ user: false });
  });

  it('rejects with the error verify reports', async () => {
    const failure = new Error('database down');
    const strategy = apiKeyStrategy((_key, done) => done(failure));
    await expect(decided(strategy, withApiKey('gh_secret'))).rejects.toBe(failure);
  });

  it('rejects with the error verify throws', async () => {
    const failure = new Error('thrown in verify');
    const strategy = apiKeyStrategy(() => {
      throw failure;
    });
    await expect(decided(strategy, withApiKey('gh_secret'))).rejects.toBe(failure);
  });

  it('resolves no user, without asking verify, when the header is missing', async () => {
    let verified = 0;
    const strategy = apiKeyStrategy((_key, done) => {
      verified++;
      done(null, { id: 'principal-1' });
    });

    const verdict = await decided(strategy, { headers: {} });
    expect(verdict.user).toBe(false);
    expect(verdict.info).toEqual(expect.objectContaining({ message: 'Missing API Key' }));
    expect(verified).toBe(0);
  });

  it('leaves the strategy object as it was, whatever the outcome', async () => {
    const strategy = apiKeyStrategy((key, done) => {
      if (key === 'gh_good') done(null, { id: 'p' });
      else if (key === 'gh_bad') done(null, false);
      else done(new Error('boom'));
    });
    const before = ownState(strategy);

    await decided(strategy, withApiKey('gh_good'));
    await decided(strategy, withApiKey('gh_bad'));
    await decided(strategy, withApiKey('gh_error')).catch(() => undefined);
    await decided(strategy, { headers: {} });

    expect(ownState(strategy)).toEqual(before);
    for (const action of ACTIONS) expect(action in strategy).toBe(false);
  });

  it('keeps interleaved runs on one strategy apart', async () => {
    const pending = new Map<string, ApiKeyDone>();
    const strategy = apiKeyStrategy((key, done) => pending.set(key, done));

    const good = decided(strategy, withApiKey('gh_good'));
    const bad = decided(strategy, withApiKey('gh_bad'));
    const broken = decided(strategy, withApiKey('gh_broken'));
    expect([...pending.keys()]).toEqual(['gh_good', 'gh_bad', 'gh_broken']);

    // Settled in the reverse order of the runs.
    const failure = new Error('database down');
    pending.get('gh_broken')!(failure);
    pending.get('gh_bad')!(null, false);
    pending.get('gh_good')!(null, { id: 'good' });

    await expect(good).resolves.toEqual({ user: { id: 'good' } });
    await expect(bad).resolves.toEqual({ user: false });
    await expect(broken).rejects.toBe(failure);
  });
});

describe('authenticateWith, with passport-jwt', () => {
  it('resolves the user that verify makes of a valid token', async () => {
    const token = sign({ sub: 'user-1' }, SECRET, { expiresIn: 60 });
    await expect(decided(jwtStrategy(), withBearer(token))).resolves.toEqual({ user: { id: 'user-1' } });
  });

  it('resolves no user, with a TokenExpiredError, for an expired token', async () => {
    let verified = 0;
    const strategy = jwtStrategy((payload, done) => {
      verified++;
      done(null, { id: payload.sub });
    });
    const token = sign({ sub: 'user-1', exp: Math.floor(Date.now() / 1000) - 60 }, SECRET);

    const verdict = await decided(strategy, withBearer(token));
    expect(verdict.user).toBe(false);
    expect(verdict.info).toBeInstanceOf(TokenExpiredError);
    expect(verified).toBe(0);
  });

  it('resolves no user, and no expiry, for a token signed with another secret', async () => {
    const token = sign({ sub: 'user-1' }, 'another-secret-of-reasonable-length-98765', { expiresIn: 60 });

    const verdict = await decided(jwtStrategy(), withBearer(token));
    expect(verdict.user).toBe(false);
    expect(verdict.info).toBeInstanceOf(JsonWebTokenError);
    expect(verdict.info).not.toBeInstanceOf(TokenExpiredError);
  });

  it('resolves no user when there is no bearer token', async () => {
    await expect(decided(jwtStrategy(), { headers: {} })).resolves.toEqual({ user: false, info: expect.any(Error) });
  });

  it('resolves no user when verify refuses the payload', async () => {
    const token = sign({ sub: 'user-1' }, SECRET, { expiresIn: 60 });
    const strategy = jwtStrategy((_payload, done) => done(null, false));
    await expect(decided(strategy, withBearer(token))).resolves.toEqual({ user: false });
  });

  it('rejects with the error verify reports', async () => {
    const failure = new Error('database down');
    const token = sign({ sub: 'user-1' }, SECRET, { expiresIn: 60 });
    const strategy = jwtStrategy((_payload, done) => done(failure, false));
    await expect(decided(strategy, withBearer(token))).rejects.toBe(failure);
  });

  it('leaves the strategy object as it was, and keeps interleaved runs apart', async () => {
    const pending = new Map<string, VerifiedCallback>();
    const strategy = jwtStrategy((payload, done) => pending.set(payload.sub, done));
    const before = ownState(strategy);

    const first = decided(strategy, withBearer(sign({ sub: 'first' }, SECRET, { expiresIn: 60 })));
    const second = decided(strategy, withBearer(sign({ sub: 'second' }, SECRET, { expiresIn: 60 })));
    expect([...pending.keys()]).toEqual(['first', 'second']);
    pending.get('second')!(null, { id: 'second' });
    pending.get('first')!(null, false);

    await expect(first).resolves.toEqual({ user: false });
    await expect(second).resolves.toEqual({ user: { id: 'second' } });
    expect(ownState(strategy)).toEqual(before);
    for (const action of ACTIONS) expect(action in strategy).toBe(false);
  });
});

describe('authenticateWith, with a strategy that neither succeeds nor fails', () => {
  class ScriptedStrategy extends Strategy {
    constructor(private readonly act: (self: ScriptedStrategy) => void) {
      super();
    }

    override authenticate(): void {
      this.act(this);
    }
  }

  it('resolves no user when the strategy passes', async () => {
    const strategy = new ScriptedStrategy((self) => self.pass());
    await expect(decided(strategy, {})).resolves.toEqual({ user: false });
  });

  it('rejects when the strategy asks for a redirect', async () => {
    const strategy = new ScriptedStrategy((self) => self.redirect('https://elsewhere.example'));
    await expect(decided(strategy, {})).rejects.toThrow('redirect');
  });

  it('reports a bare failure status as no user, without info', async () => {
    const strategy = new ScriptedStrategy((self) => self.fail(401));
    await expect(decided(strategy, {})).resolves.toStrictEqual({ user: false, info: undefined });
  });
});

describe('authenticateWith, deciding at once', () => {
  it('returns the verdict itself, not a promise, when verify answers before authenticate returns', () => {
    const strategy = apiKeyStrategy((_key, done) => done(null, { id: 'principal-1' }));
    expect(authenticateWith(strategy, withApiKey('gh_secret'))).toEqual({ user: { id: 'principal-1' } });
    const refused = apiKeyStrategy((_key, done) => done(null, false));
    expect(authenticateWith(refused, withApiKey('gh_secret'))).toEqual({ user: false });
  });

  it('throws the error of a verify that fails at once', () => {
    const failure = new Error('database down');
    const strategy = apiKeyStrategy((_key, done) => done(failure));
    expect(() => authenticateWith(strategy, withApiKey('gh_secret'))).toThrow(failure);
  });

  it('returns a promise when verify answers later', async () => {
    const strategy = apiKeyStrategy((_key, done) => setImmediate(() => done(null, { id: 'late' })));
    const verdict = authenticateWith(strategy, withApiKey('gh_secret'));
    expect(verdict).toBeInstanceOf(Promise);
    await expect(verdict).resolves.toEqual({ user: { id: 'late' } });
  });

  it('keeps the first decision of a strategy that decides twice', async () => {
    const strategy = apiKeyStrategy((_key, done) => {
      done(null, { id: 'first' });
      done(new Error('second'));
    });
    expect(authenticateWith(strategy, withApiKey('gh_secret'))).toEqual({ user: { id: 'first' } });
    const late = apiKeyStrategy((_key, done) =>
      setImmediate(() => {
        done(null, false);
        done(null, { id: 'second' });
      }),
    );
    await expect(authenticateWith(late, withApiKey('gh_secret'))).resolves.toEqual({ user: false });
  });
});

describe('verifyWith', () => {
  type Done = (err: Error | null, user?: object | false) => void;
  const calls = () => {
    const seen: Array<[Error | null, (object | false)?]> = [];
    const done: Done = (err, user) => void seen.push([err, user]);
    return { seen, done };
  };

  it('calls done before returning when validate answers synchronously', () => {
    const { seen, done } = calls();
    verifyWith((key: string) => ({ key }))('gh_a', done);
    expect(seen).toEqual([[null, { key: 'gh_a' }]]);
  });

  it('hands done what validate throws', () => {
    const { seen, done } = calls();
    const failure = new Error('invalid');
    verifyWith(() => {
      throw failure;
    })('gh_a', done);
    expect(seen).toEqual([[failure, false]]);
  });

  it('calls done once the promise of validate settles', async () => {
    const { seen, done } = calls();
    const failure = new Error('database down');
    verifyWith((key: string) => Promise.resolve({ key }))('gh_a', done);
    verifyWith(() => Promise.reject(failure))('gh_b', done);
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      [null, { key: 'gh_a' }],
      [failure, false],
    ]);
  });

  it('lets passport-headerapikey decide a key synchronously through authenticateWith', () => {
    const strategy = new HeaderAPIKeyStrategy(
      { header: 'X-Api-Key', prefix: '' },
      false,
      verifyWith((key: string) => (key === 'gh_good' ? { id: 'p' } : false)),
    );
    expect(authenticateWith(strategy, withApiKey('gh_good'))).toEqual({ user: { id: 'p' } });
    expect(authenticateWith(strategy, withApiKey('gh_bad'))).toEqual({ user: false });
  });
});
