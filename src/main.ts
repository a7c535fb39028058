import 'reflect-metadata';
import { keepTickObjectShape } from './runtime/tick-shape';
import { createApp } from './app.setup';
import { loadConfig } from './config/app-config';

async function bootstrap(): Promise<void> {
  keepTickObjectShape(); // before the embedded database starts (see tick-shape.ts)
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: '0.0.0.0' });
}

bootstrap().catch((err: Error) => {
  console.error(`Gatehouse did not start: ${err.message}`);
  process.exit(1);
});
