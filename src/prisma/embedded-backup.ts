import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { fsyncDirectory } from './embedded-directory';
import { pgliteModule } from './pglite-module';

/**
 * A consistent copy of an open embedded database: a gzipped tarball of its data directory.
 * CHECKPOINT first writes every committed change into the table files; PGlite's dumpDataDir() then
 * reads the whole directory synchronously, so no query of this process runs while it is read (a
 * transaction left open across awaits is rolled back when the copy is opened, as after a crash).
 */
export async function dumpEmbedded(pglite: PGlite): Promise<Buffer> {
  await pglite.exec('CHECKPOINT');
  const tarball = await pglite.dumpDataDir('gzip');
  return Buffer.from(await tarball.arrayBuffer());
}

/** A backup's bytes as PGlite's loadDataDir takes them. */
export const tarball = (bytes: Buffer): Blob => new Blob([new Uint8Array(bytes)], { type: 'application/gzip' });

/** What a backup file holds, as checked by opening it. */
export interface BackupContents {
  readonly migrations: string[];
}

/**
 * Opens `bytes` as a database in memory and reads the migrations it has applied: a file that is not
 * a complete backup (cut short, another file, corrupt) fails here, before anything is written.
 */
export async function verifyBackup(bytes: Buffer): Promise<BackupContents> {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new Error('it is not a Gatehouse backup (not gzip)');
  let pglite: PGlite | undefined;
  try {
    pglite = new PGlite('memory://', { loadDataDir: tarball(bytes), wasmModule: await pgliteModule() });
    await pglite.waitReady;
    const { rows } = await pglite.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1`,
    );
    if (rows.length === 0) throw new Error('it holds no migrated database');
    return { migrations: rows.map((r) => r.migration_name) };
  } catch (err) {
    throw new Error(`it does not open as a database (${(err as Error).message})`, { cause: err });
  } finally {
    await pglite?.close().catch(() => undefined);
  }
}

/** Writes `bytes` to `file` whole: beside it first, flushed, then renamed into place. */
export function writeWhole(file: string, bytes: Buffer): void {
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w', 0o600);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  fsyncDirectory(dirname(file));
}

/** The line the running service answers on the backup socket. */
export type BackupAnswer = { ok: true; snapshot: string; pausedMs: number } | { ok: false; error: string };

/**
 * Asks the service listening on `socket` for a snapshot of its directory and runs `use` on it; the
 * connection stays open meanwhile, and its end tells the service to remove the snapshot. Rejects
 * with ENOENT/ECONNREFUSED when nothing listens.
 */
export function withSnapshot<T>(socket: string, use: (answer: { snapshot: string; pausedMs: number }) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let received = '';
    let answered = false;
    const conn = connect(socket);
    conn.on('connect', () => conn.write('backup\n'));
    conn.on('error', reject);
    conn.on('end', () => {
      if (!answered) reject(new Error('the running service closed the connection without an answer'));
    });
    conn.on('data', (chunk: Buffer) => {
      if (answered) return;
      received += chunk.toString('utf8');
      const newline = received.indexOf('\n');
      if (newline < 0) return;
      answered = true;
      const answer = JSON.parse(received.slice(0, newline)) as BackupAnswer;
      if (!answer.ok) {
        conn.end();
        return reject(new Error(`the running service could not make it: ${answer.error}`));
      }
      use(answer)
        .then(resolve, reject)
        .finally(() => conn.end());
    });
  });
}
