import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completeDatabaseDirectory, embeddedPaths, lockDataDir } from './embedded-directory';

let dataDir: string;
beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'embedded-directory-'))));
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** Writes `files` (paths relative to `dir`), each with a line of content. */
function write(dir: string, ...files: string[]): void {
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), 'x\n');
  }
}

/** A `create` that writes what a migrated database holds: catalogs, and a table's file. */
const created = jest.fn((dir: string) => {
  write(dir, 'PG_VERSION', 'base/1/1259', 'base/1/16384');
  return Promise.resolve();
});

describe('completeDatabaseDirectory', () => {
  it('makes a new database beside its place and renames it into place, after deleting what a killed start left there', async () => {
    const { database, creating } = embeddedPaths(dataDir);
    write(creating, 'PG_VERSION', 'base/1/1259');
    expect(await completeDatabaseDirectory(dataDir, created)).toBe(database);
    expect(created).toHaveBeenCalledWith(creating);
    expect(readdirSync(dataDir).sort()).toEqual(['pglite']);
    expect(readdirSync(join(database, 'base', '1')).sort()).toEqual(['1259', '16384']);
  });

  it('leaves no database when making it fails', async () => {
    const failing = (dir: string) => {
      write(dir, 'PG_VERSION');
      return Promise.reject(new Error('initdb failed'));
    };
    await expect(completeDatabaseDirectory(dataDir, failing)).rejects.toThrow('initdb failed');
    expect(existsSync(embeddedPaths(dataDir).database)).toBe(false);
  });

  it('opens a database holding a table as it is', async () => {
    const { database } = embeddedPaths(dataDir);
    write(database, 'PG_VERSION', 'base/1/1259', 'base/1/16390_fsm');
    const make = jest.fn();
    expect(await completeDatabaseDirectory(dataDir, make)).toBe(database);
    expect(make).not.toHaveBeenCalled();
    expect(readFileSync(join(database, 'base', '1', '16390_fsm'), 'utf8')).toBe('x\n');
  });

  it('makes again a half-made database with no table, whatever initdb had written', async () => {
    const { database } = embeddedPaths(dataDir);
    write(
      database,
      'PG_VERSION',
      'postmaster.pid',
      'pg_hba.conf',
      'pg_ident.conf',
      'postgresql.conf',
      'postgresql.auto.conf',
      'base/1/1259',
      'base/1/pg_filenode.map',
      'global/pg_control',
      'pg_wal/000000010000000000000001',
    );
    await completeDatabaseDirectory(dataDir, created);
    expect(readdirSync(database).sort()).toEqual(['PG_VERSION', 'base']);
    expect(readdirSync(join(database, 'base', '1')).sort()).toEqual(['1259', '16384']);
  });

  it('refuses, changing nothing, a directory with no table but files initdb does not write', async () => {
    const { database } = embeddedPaths(dataDir);
    write(database, 'PG_VERSION', 'notes.txt');
    const make = jest.fn();
    await expect(completeDatabaseDirectory(dataDir, make)).rejects.toThrow(`${database} holds no database but other files (notes.txt)`);
    expect(make).not.toHaveBeenCalled();
    expect(readdirSync(database).sort()).toEqual(['PG_VERSION', 'notes.txt']);
  });
});

describe('lockDataDir', () => {
  const lockFile = () => embeddedPaths(dataDir).lock;

  it('holds the PID while locked, and removes the lock on release', () => {
    const release = lockDataDir(dataDir);
    expect(readFileSync(lockFile(), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockDataDir(dataDir)).toThrow(`This process has the embedded database in ${dataDir} open already`);
    release();
    expect(readdirSync(dataDir)).toEqual([]);
    lockDataDir(dataDir)();
  });

  it('refuses while another running process holds it, naming the process and leaving its lock', () => {
    writeFileSync(lockFile(), `${process.ppid}\n`);
    expect(() => lockDataDir(dataDir)).toThrow(`The embedded database in ${dataDir} is in use by process ${process.ppid}`);
    expect(readFileSync(lockFile(), 'utf8')).toBe(`${process.ppid}\n`);
    expect(readdirSync(dataDir)).toEqual(['pglite.lock']);
  });

  it('takes over a lock whose process has gone, one with its own PID (a restarted container) and an empty one', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    for (const stale of [`${gone}\n`, `${process.pid}\n`, '']) {
      writeFileSync(lockFile(), stale);
      const release = lockDataDir(dataDir);
      expect(readFileSync(lockFile(), 'utf8')).toBe(`${process.pid}\n`);
      release();
    }
  });
});
