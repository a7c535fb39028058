import { chmodSync, rmSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, IN_MEMORY } from '../config/app-config';
import type { BackupAnswer } from './embedded-backup';
import { embeddedPaths } from './embedded-directory';
import { PrismaService } from './prisma.service';

/**
 * `npm run db:backup` while the service runs. A second process cannot open the embedded database
 * the service holds (one process per data directory), so the service copies its directory, on disk,
 * to `DATA_DIR/pglite.snapshot` while no query runs, and the CLI makes the backup file from that copy
 * in its own process (and memory). The CLI asks over a Unix socket, `DATA_DIR/pglite.backup.sock`
 * (mode 0600: only the user that runs the service, who can read DATA_DIR anyway); nothing listens
 * on a network port. See docs/DECISIONS.md, "Backups of the embedded database".
 */
/** Longer socket paths are cut short without an error (Linux takes 107 bytes, macOS 103). */
const MAX_SOCKET_PATH = 103;

@Injectable()
export class BackupSocket implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(BackupSocket.name);
  private server?: Server;
  private busy = false;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const pglite = this.prisma.pglite;
    if (pglite === undefined || this.config.dataDir === IN_MEMORY || process.platform === 'win32') return;
    const { backupSocket, snapshot } = embeddedPaths(this.config.dataDir);
    if (Buffer.byteLength(backupSocket) > MAX_SOCKET_PATH) {
      this.logger.warn(`npm run db:backup cannot reach this process (DATA_DIR's path is too long for a socket): back up with it stopped`);
      return;
    }
    // Left by a process that was killed, or a CLI that was: this process holds the lock.
    rmSync(backupSocket, { force: true });
    rmSync(snapshot, { recursive: true, force: true });
    const server = createServer({ allowHalfOpen: true }, (conn) => {
      conn.on('error', () => undefined); // the CLI went away: what it left is removed on close
      conn.on('end', () => conn.end());
      conn.once('data', () => void this.answer(conn, pglite));
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', (err: Error) => {
        // Serve all the same: only a backup of the running process is not to be had.
        this.logger.warn(`npm run db:backup cannot reach this process (${err.message}): back up with it stopped`);
        resolve(false);
      });
      server.listen(backupSocket, () => resolve(true));
    });
    if (!listening) return;
    chmodSync(backupSocket, 0o600);
    server.unref();
    this.server = server;
  }

  /**
   * One backup at a time. The snapshot stays while the CLI reads it, which it does with the
   * connection open: when the connection closes (done, or the CLI killed) the snapshot is removed.
   */
  private async answer(conn: Socket, pglite: PGlite): Promise<void> {
    if (this.busy) {
      conn.end(`${JSON.stringify({ ok: false, error: 'another backup is under way' } satisfies BackupAnswer)}\n`);
      return;
    }
    this.busy = true;
    const { snapshot } = embeddedPaths(this.config.dataDir);
    conn.once('close', () => {
      rmSync(snapshot, { recursive: true, force: true });
      this.busy = false;
    });
    let answer: BackupAnswer;
    try {
      answer = { ok: true, snapshot, pausedMs: await this.copy(pglite, snapshot) };
      this.logger.log(`Backup of the embedded database: directory copied in ${answer.pausedMs} ms (queries waited meanwhile)`);
    } catch (err) {
      answer = { ok: false, error: (err as Error).message };
      this.logger.error(`Backup of the embedded database failed: ${answer.error}`);
    }
    conn.write(`${JSON.stringify(answer)}\n`);
  }

  /**
   * CHECKPOINT (the table files take every committed change), then the directory copied on disk
   * while PGlite's transaction lock is held: every query, statement and transaction of this process
   * waits for the copy (none is half done in it); requests that need no query go on. How long it
   * paused them, in ms.
   */
  private async copy(pglite: PGlite, snapshot: string): Promise<number> {
    const { database } = embeddedPaths(this.config.dataDir);
    await rm(snapshot, { recursive: true, force: true });
    await pglite.exec('CHECKPOINT');
    const started = Date.now();
    await pglite._runExclusiveTransaction(() => cp(database, snapshot, { recursive: true }));
    return Date.now() - started;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.server === undefined) return;
    const { backupSocket } = embeddedPaths(this.config.dataDir);
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    rmSync(backupSocket, { force: true });
  }
}
