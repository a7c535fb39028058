import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { IN_MEMORY, loadConfig } from '../config/app-config';
import { tarball, verifyBackup } from '../prisma/embedded-backup';
import { embeddedPaths, fsyncDirectory, fsyncTree, lockDataDir } from '../prisma/embedded-directory';
import { applyMigrations, committedMigrations } from '../prisma/migrations';
import { pgliteModule } from '../prisma/pglite-module';

const USAGE = `Restores a backup made by \`npm run db:backup\` into the embedded database's DATA_DIR.

  npm run db:restore -- FILE [--force]

The service must be stopped. FILE is opened and checked first; a DATA_DIR that holds a database
already is left alone unless --force (its database is then replaced). The restored database is
opened again and migrated to this version before the command ends.`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { force: { type: 'boolean' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const file = positionals[0];
  const config = loadConfig(process.env);
  if (config.databaseUrl !== undefined) throw new Error('DATABASE_URL is set: restore PostgreSQL with pg_restore (README, "Backups")');
  if (config.dataDir === IN_MEMORY) throw new Error(`DATA_DIR is ${IN_MEMORY}: there is no directory to restore into`);
  const dataDir = config.dataDir;

  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read ${file} (${(err as NodeJS.ErrnoException).code})`, { cause: err });
  }
  const { migrations } = await verifyBackup(bytes).catch((err: Error) => {
    throw new Error(`${file}: ${err.message}`);
  });
  const known = new Set(committedMigrations().map((m) => m.name));
  const unknown = migrations.filter((m) => !known.has(m));
  if (unknown.length > 0)
    throw new Error(`${file} was made by a newer Gatehouse (migrations ${unknown.join(', ')}): restore it with that version`);

  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (err) {
    throw new Error(`stop the service first. ${(err as Error).message}`, { cause: err });
  }
  try {
    const { database, creating } = embeddedPaths(dataDir);
    if (existsSync(database) && !values.force)
      throw new Error(`${dataDir} holds a database already: restore into an empty DATA_DIR, or add --force to replace it`);
    const wasmModule = await pgliteModule();
    rmSync(creating, { recursive: true, force: true });
    const loading = new PGlite(creating, { loadDataDir: tarball(bytes), wasmModule });
    await loading.waitReady;
    await loading.close();
    fsyncTree(creating);
    const replaced = join(dataDir, 'pglite.replaced');
    rmSync(replaced, { recursive: true, force: true });
    if (existsSync(database)) renameSync(database, replaced);
    renameSync(creating, database);
    fsyncDirectory(dataDir);
    rmSync(replaced, { recursive: true, force: true });

    const pglite = new PGlite(database, { wasmModule });
    try {
      const applied = await applyMigrations(pglite);
      const { rows } = await pglite.query<{ accounts: number }>('SELECT count(*)::int AS accounts FROM "Account"');
      console.log(
        `Restored ${file} into ${dataDir}: ${rows[0].accounts} account(s)` +
          (applied.length > 0 ? `, then applied migrations ${applied.join(', ')}.` : ', at this version.'),
      );
    } finally {
      await pglite.close();
    }
  } finally {
    release();
  }
}

main().catch((err: unknown) => {
  console.error(`Not restored: ${(err as Error).message}`);
  process.exit(1);
});
