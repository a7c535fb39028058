import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, IN_MEMORY } from '../config/app-config';
import { type BackupHeader, dumpEmbedded, sha256 } from './embedded-backup';
import { embeddedPaths } from './embedded-directory';
import { PrismaService } from './prisma.service';

/**
 * `npm run db:backup` while the service runs: a second process cannot open the embedded database
 * the service holds (one process per data directory), so the service makes the copy itself and
 * hands it over a Unix socket, `DATA_DIR/pglite.backup.sock` (mode 0600: only the user that runs the
 * service, who can read DATA_DIR anyway, can ask). Nothing listens on a network port. See
 * docs/DECISIONS.md, "Backups of the embedded database".
 */
@Injectable()
export class BackupSocket implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(BackupSocket.name);
  private server?: Server;
  private path?: string;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const pglite = this.prisma.pglite;
    if (pglite === undefined || this.config.dataDir === IN_MEMORY || process.platform === 'win32') return;
    const path = embeddedPaths(this.config.dataDir).backupSocket;
    rmSync(path, { force: true }); // left by a process that was killed: this one holds the lock
    const server = createServer({ allowHalfOpen: true }, (conn) => {
      conn.on('error', () => undefined); // the CLI went away: nothing to answer
      conn.once('data', () => {
        const started = Date.now();
        dumpEmbedded(pglite).then(
          (bytes) => {
            const header: BackupHeader = { ok: true, bytes: bytes.length, sha256: sha256(bytes) };
            conn.write(`${JSON.stringify(header)}\n`);
            conn.end(bytes);
            this.logger.log(`Backup of the embedded database: ${bytes.length} bytes in ${Date.now() - started} ms`);
          },
          (err: Error) => {
            const header: BackupHeader = { ok: false, error: err.message };
            conn.end(`${JSON.stringify(header)}\n`);
            this.logger.error(`Backup of the embedded database failed: ${err.message}`);
          },
        );
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    server.unref();
    this.server = server;
    this.path = path;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.server === undefined) return;
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    rmSync(this.path!, { force: true });
  }
}
