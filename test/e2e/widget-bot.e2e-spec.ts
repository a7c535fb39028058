import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { BOT_MS_PER_CANDIDATE, DEFAULT_WAIT_MS, MAX_COUNTER } from '../../src/widget/pow';
import { createAccount, createPlan, startApp, TestApp } from '../utils/test-app';

const BOT = resolve(__dirname, '../utils/widget-bot.cjs');
const SECONDS = 20;

/**
 * What proof of work is for: a bot pays for every nonce. A Node bot (test/utils/widget-bot.cjs,
 * node:crypto's synchronous PBKDF2, the cheapest loop Node has) asking at the default level for 20 s
 * gets no more nonces than its own CPU time buys at the bot's cost that `npm run bench:widget`
 * measured (src/widget/pow.ts): the solution is uniform in [0, MAX], so a nonce costs MAX / 2 + 1
 * candidates on average. The margin covers the spread of ~30 uniform draws (about ±10 %).
 */
describe('a CPU bot against the widget', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ WIDGET_VISITOR_PER_MINUTE: '10000' });
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t.close());

  it(`gets no more nonces in ${SECONDS} s than its CPU time pays for at the default level`, async () => {
    const account = await createAccount(t, await createPlan(t, 10_000, 1000));
    const { key } = await account.createKey({ scopes: ['widget'], challengeWaitMs: null });
    const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const { stdout } = await promisify(execFile)(process.execPath, [BOT, base, key, String(SECONDS)], { timeout: (SECONDS + 30) * 1000 });
    const bot = JSON.parse(stdout) as { nonces: number; refused: number; cpuMs: number };

    const msPerNonce = (MAX_COUNTER[DEFAULT_WAIT_MS] / 2 + 1) * BOT_MS_PER_CANDIDATE;
    expect(bot.refused).toBe(0);
    expect(bot.nonces).toBeGreaterThan(0);
    expect(bot.nonces).toBeLessThanOrEqual(Math.ceil((1.5 * bot.cpuMs) / msPerNonce));
  }, 60_000);
});
