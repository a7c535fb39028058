import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AccountsService } from '../accounts/accounts.service';
import { AppModule } from '../app.module';
import { AppError } from '../common/errors/app-error';
import { loadConfig } from '../config/app-config';

const USAGE = `Creates an account and its OWNER, for deployments with sign-up closed.

  OWNER_PASSWORD='…' npm run account:create -- --email owner@example.com --name "Acme" [--plan pro]

The password comes from OWNER_PASSWORD, or else the first line of standard input, never from the
command line (where other users of the machine could read it). The database is the app's
(DATABASE_URL, or the embedded one under DATA_DIR — stop the server first: one process at a time
opens an embedded database).`;

async function readPassword(): Promise<string> {
  if (process.env.OWNER_PASSWORD !== undefined) return process.env.OWNER_PASSWORD;
  if (process.stdin.isTTY) throw new Error('set OWNER_PASSWORD, or pipe the password on standard input');
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  return input.split(/\r?\n/)[0] ?? '';
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || values.email === undefined || values.name === undefined) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const password = await readPassword();
  const { OWNER_PASSWORD: _password, ...env } = process.env;
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(loadConfig(env)), { logger: ['error'] });
  try {
    const created = await app.get(AccountsService).createWithOwner({ name: values.name, email: values.email, password, plan: values.plan });
    console.log(`Created account ${created.accountId} ("${values.name.trim()}") with OWNER ${values.email.trim().toLowerCase()}.`);
  } finally {
    await app.close();
  }
}

main().catch((err: unknown) => {
  if (err instanceof AppError) {
    const details = (err.details ?? []).map((d) => `\n  ${d.field}: ${d.message}`).join('');
    console.error(`Not created: ${err.message}${details}`);
  } else {
    console.error(`Not created: ${(err as Error).message}`);
  }
  process.exit(1);
});
