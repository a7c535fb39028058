import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { IN_MEMORY, loadConfig } from '../config/app-config';
import { dumpEmbedded, verifyBackup, withSnapshot, writeWhole } from '../prisma/embedded-backup';
import { embeddedPaths, isRunning, lockDataDir, lockOwner } from '../prisma/embedded-directory';
import { pgliteModule } from '../prisma/pglite-module';

const USAGE = `Writes a consistent copy of the embedded database (DATA_DIR) to FILE.

  npm run db:backup -- FILE

While the service runs, it is asked over DATA_DIR/pglite.backup.sock for a copy of its directory
(DATA_DIR/pglite.snapshot, removed afterwards), made while its queries wait; when it is stopped,
this opens the directory itself. The copy is opened and checked before FILE is
written (whole, or not at all). On PostgreSQL (DATABASE_URL) use pg_dump (README, "Backups").`;

/** A copy of the database in `directory`, which nothing else has open. */
async function dump(directory: string): Promise<Buffer> {
  const pglite = new PGlite(directory, { wasmModule: await pgliteModule() });
  try {
    return await dumpEmbedded(pglite);
  } finally {
    await pglite.close();
  }
}

/** From the running service's snapshot, or from the stopped directory; which, for the report. */
async function copy(dataDir: string): Promise<{ bytes: Buffer; from: string }> {
  const { lock, database, backupSocket } = embeddedPaths(dataDir);
  const owner = lockOwner(lock);
  if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
    return withSnapshot(backupSocket, async ({ snapshot, pausedMs }) => ({
      bytes: await dump(snapshot),
      from: `from the running service (process ${owner}; its queries waited ${pausedMs} ms)`,
    })).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')
        throw new Error(`process ${owner} holds ${dataDir} but does not answer on ${backupSocket} (is it Gatehouse, and this version?)`, {
          cause: err,
        });
      throw err;
    });
  }
  const release = lockDataDir(dataDir);
  try {
    if (!existsSync(database)) throw new Error(`${dataDir} holds no embedded database (no ${database})`);
    return { bytes: await dump(database), from: 'from the stopped data directory' };
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
