import { AppProcess } from '../utils/app-process';
import { freePort } from '../utils/private-redis';

/** The error fetch fails with when nothing accepts the connection: ECONNREFUSED, or undefined if it answered. */
const refusal = (url: string): Promise<string | undefined> =>
  fetch(url).then(
    () => undefined,
    (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
  );

describe('LISTEN_ADDRESS=127.0.0.1', () => {
  let app: AppProcess;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    app = await AppProcess.start({ DATA_DIR: 'memory://', LISTEN_ADDRESS: '127.0.0.1', METRICS_PORT: String(metricsPort) });
  }, 120_000);
  afterAll(() => app?.stop());

  it('answers on this machine’s address only, the metrics listener too', async () => {
    expect((await fetch(`http://127.0.0.1:${app.port}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    // Another loopback address reaches every interface's listener (0.0.0.0, the default), not this one.
    expect(await refusal(`http://127.0.0.2:${app.port}/health`)).toBe('ECONNREFUSED');
    expect(await refusal(`http://127.0.0.2:${metricsPort}/metrics`)).toBe('ECONNREFUSED');
  });
});
