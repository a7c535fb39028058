import 'reflect-metadata';
import { createApp } from './app.setup';
import { loadConfig } from './config/app-config';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: '0.0.0.0' });
}

bootstrap().catch((err: Error) => {
  console.error(`Gatehouse did not start: ${err.message}`);
  process.exit(1);
});
