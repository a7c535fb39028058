import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

/** Where, under DATA_DIR, the embedded database lives, is made, and is locked. */
export function embeddedPaths(dataDir: string): {
  database: string;
  creating: string;
  lock: string;
  backupSocket: string;
  snapshot: string;
} {
  return {
    database: join(dataDir, 'pglite'),
    creating: join(dataDir, 'pglite.creating'),
    lock: join(dataDir, 'pglite.lock'),
    backupSocket: join(dataDir, 'pglite.backup.sock'),
    snapshot: join(dataDir, 'pglite.snapshot'),
  };
}

/** PostgreSQL numbers what is made after initdb from this OID on, and names a relation's files after it. */
const FIRST_USER_OID = 16384;
/** What initdb writes into a data directory: a directory holding only these may be made again. */
const INITDB_ENTRY = /^(PG_VERSION|base|global|pg_[a-z_]+|pg_(hba|ident)\.conf|postgresql(\.auto)?\.conf|postmaster\.(pid|opts))$/;

/** True when some database in `database` has a table (or any relation) of its own: the migrations make them. */
function holdsTables(database: string): boolean {
  const base = join(database, 'base');
  if (!existsSync(base)) return false;
  return readdirSync(base, { withFileTypes: true }).some(
    (db) => db.isDirectory() && readdirSync(join(base, db.name)).some((file) => Number.parseInt(file, 10) >= FIRST_USER_OID),
  );
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** PGlite never calls fsync (its Node file system has none): the new directory is flushed before it is renamed into place. */
export function fsyncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(path);
    else if (entry.isFile()) fsyncPath(path);
  }
  fsyncDirectory(dir);
}

export function fsyncDirectory(dir: string): void {
  try {
    fsyncPath(dir);
  } catch (err) {
    // Windows cannot open a directory; elsewhere this is a real failure.
    if (process.platform !== 'win32') throw err;
  }
}

/**
 * The embedded database's directory, `DATA_DIR/pglite`, complete. A new one is made whole beside
 * it, in `pglite.creating` (`create`: initdb and the migrations, which seed the plans), flushed to
 * disk and renamed into place, so a start killed at any moment leaves either no database or a
 * complete one. What such a start left in `pglite.creating` is deleted first.
 *
 * A `pglite` made in place by earlier versions may be half made (initdb killed: it never opens, or
 * opens without all of PostgreSQL's catalogs). One holding no table never got past creation, so it
 * holds no data and is made again; anything holding a table, or files initdb does not write, is
 * left as it is.
 */
export async function completeDatabaseDirectory(dataDir: string, create: (dir: string) => Promise<void>): Promise<string> {
  const { database, creating } = embeddedPaths(dataDir);
  rmSync(creating, { recursive: true, force: true });
  if (existsSync(database)) {
    if (holdsTables(database)) return database;
    const foreign = readdirSync(database).filter((entry) => !INITDB_ENTRY.test(entry));
    if (foreign.length > 0)
      throw new Error(
        `${database} holds no database but other files (${foreign.join(', ')}): move them away, or set DATA_DIR to another directory`,
      );
    new Logger('Database').warn(`${database} was left half made by an interrupted first start (it holds no table): making it again`);
    renameSync(database, creating);
    rmSync(creating, { recursive: true, force: true });
  }
  await create(creating);
  fsyncTree(creating);
  renameSync(creating, database);
  fsyncDirectory(dataDir);
  return database;
}

const locked = new Set<string>();

export function lockOwner(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // running, as another user
  }
}

/**
 * One process per embedded database: PGlite itself lets two processes open one directory and both
 * write to it. `DATA_DIR/pglite.lock` holds the PID of the process that has it; it is made whole
 * (written beside it, then hard-linked, which fails if it exists) so it is never seen empty. A lock
 * whose process has gone (killed) is stale and taken over, as is one holding this process's own PID
 * (a container restarted: the app is PID 1 again). Returns the release, which also runs at exit.
 */
export function lockDataDir(dataDir: string): () => void {
  const { lock } = embeddedPaths(dataDir);
  if (locked.has(lock)) throw new Error(`This process has the embedded database in ${dataDir} open already`);
  mkdirSync(dataDir, { recursive: true });
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === 2) throw err;
      }
      const owner = lockOwner(lock);
      if (owner !== undefined && owner !== process.pid && isRunning(owner))
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${owner}: one process per data directory. ` +
            `Stop that process or give this one another DATA_DIR (if process ${owner} is not Gatehouse, delete ${lock}).`,
        );
      rmSync(lock, { force: true });
    }
  } finally {
    rmSync(mine, { force: true });
  }
  locked.add(lock);
  const release = () => {
    if (!locked.delete(lock)) return;
    process.off('exit', release);
    if (lockOwner(lock) === process.pid) rmSync(lock, { force: true });
  };
  process.on('exit', release);
  return release;
}
