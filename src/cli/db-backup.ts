import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { IN_MEMORY, loadConfig } from '../config/app-config';
import { dumpEmbedded, requestBackup, verifyBackup, writeWhole } from '../prisma/embedded-backup';
import { embeddedPaths, isRunning, lockDataDir, lockOwner } from '../prisma/embedded-directory';
import { pgliteModule } from '../prisma/pglite-module';

const USAGE = `Writes a consistent copy of the embedded database (DATA_DIR) to FILE.

  npm run db:backup -- FILE

While the service runs, the service makes the copy and hands it over DATA_DIR/pglite.backup.sock;
when it is stopped, this opens the directory itself. The copy is opened and checked before FILE is
written (whole, or not at all). On PostgreSQL (DATABASE_URL) use pg_dump (README, "Backups").`;

/** From the running service, or from the stopped directory; which, for the report. */
async function copy(dataDir: string): Promise<{ bytes: Buffer; from: string }> {
  const { lock, database, backupSocket } = embeddedPaths(dataDir);
  const owner = lockOwner(lock);
  if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
    const bytes = await requestBackup(backupSocket).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')
        throw new Error(`process ${owner} holds ${dataDir} but does not answer on ${backupSocket} (is it Gatehouse, and this version?)`);
      throw err;
    });
    return { bytes, from: `from the running service (process ${owner})` };
  }
  const release = lockDataDir(dataDir);
  try {
    if (!existsSync(database)) throw new Error(`${dataDir} holds no embedded database (no ${database})`);
    const pglite = new PGlite(database, { wasmModule: await pgliteModule() });
    try {
      return { bytes: await dumpEmbedded(pglite), from: 'from the stopped data directory' };
    } finally {
      await pglite.close();
    }
  } finally {
    release();
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { help: { type: 'boolean' } }, allowPositionals: true });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const file = positionals[0];
  const config = loadConfig(process.env);
  if (config.databaseUrl !== undefined) throw new Error('DATABASE_URL is set: back up PostgreSQL with pg_dump (README, "Backups")');
  if (config.dataDir === IN_MEMORY) throw new Error(`DATA_DIR is ${IN_MEMORY}: nothing is kept to back up`);
  const started = Date.now();
  const { bytes, from } = await copy(config.dataDir);
  const { migrations } = await verifyBackup(bytes);
  writeWhole(file, bytes);
  console.log(
    `Wrote ${file}: ${bytes.length} bytes ${from} in ${Date.now() - started} ms; it opens, at migration ${migrations[migrations.length - 1]}.`,
  );
}

main().catch((err: unknown) => {
  console.error(`Not backed up: ${(err as Error).message}`);
  process.exit(1);
});
