// First: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) instruments the modules loaded after it.
import './tracing/start';
import 'reflect-metadata';
import { keepTickObjectShape } from './runtime/tick-shape';
import { createApp } from './app.setup';
import { loadConfig } from './config/app-config';
import { BootstrapOwner } from './accounts/bootstrap-owner';

async function bootstrap(): Promise<void> {
  keepTickObjectShape(); // before the embedded database starts (see tick-shape.ts)
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: config.listenAddress });
  // One line for a person, on stderr beside the JSON logs on stdout.
  const base = `http://localhost:${config.port}`;
  process.stderr.write(
    `Gatehouse is listening on ${base} · Dashboard: ${base}/ · Swagger UI: ${base}/docs · ${app.get(BootstrapOwner).howToSignIn(base)}\n`,
  );
}

bootstrap().catch((err: Error) => {
  console.error(`Gatehouse did not start: ${err.message}`);
  process.exit(1);
});
