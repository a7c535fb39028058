import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PGlite } from '@electric-sql/pglite';
import PgBoss from 'pg-boss';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

/** pg-boss's queue of delivery attempts: a job is one attempt of one delivery. */
const QUEUE = 'webhook-delivery';
const SCHEMA = 'pgboss';
/** Jobs a worker takes at once. */
const BATCH = 5;
/**
 * Workers per instance, each fetching its own batches: a worker waits for its whole batch, so a
 * receiver that hangs for the full 10 s holds up one worker's batch, not the instance.
 */
const WORKERS = 4;
/**
 * pg-boss's timers, in seconds: how often an idle delivery worker and the scheduled checks' worker
 * look for due jobs, how often the supervisor expires jobs whose worker died, and how often the cron
 * worker hands a due schedule slot on. On PostgreSQL other instances' jobs appear only so. The
 * embedded database has one instance, which wakes its workers itself when a job it enqueued is due
 * (at once, or at its retry time; after a restart, at the times of those put off before it), so there
 * the timers are a backstop (an attempt cut short, a job expired) and the scheduled checks may start a
 * minute or two late: every timer is a query on the one PGlite (with polls every 5 s an idle instance
 * used 0.5–0.7 % of a core, now 0.1 %).
 */
const TIMERS = {
  postgres: { poll: 1, schedulePoll: 10, maintenance: 30, cronWorker: 5 },
  embedded: { poll: 60, schedulePoll: 60, maintenance: 60, cronWorker: 45 },
} as const;
/** After an enqueue, this instance's worker looks for jobs this soon: the transaction has committed by then, as a rule. */
const WAKE_AFTER_ENQUEUE_MS = 30;
/** The longest delay setTimeout takes; a later job is found by a poll. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** pg-boss's delay before it offers a failed job again (the queue's `retryDelay`). */
const RETRY_DELAY_SECONDS = 5;

export interface DeliveryJob {
  readonly deliveryId: string;
}

type QueueDb = { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

/**
 * pg-boss over the embedded PGlite: statements with parameters go to `query`; pg-boss's blocks of
 * several statements (`BEGIN; … COMMIT;`, sent without parameters) to `exec`, which runs them as one
 * under PGlite's lock.
 */
function pgliteDb(pglite: PGlite): QueueDb {
  return {
    async executeSql(text, values) {
      if (values !== undefined && values.length > 0) return pglite.query(text, values);
      const results = await pglite.exec(text);
      return results[results.length - 1] ?? { rows: [] };
    },
  };
}

/** pg-boss's insert through the change's own transaction: the job commits or rolls back with it. */
function transactionDb(tx: Prisma.TransactionClient): QueueDb {
  return {
    async executeSql(text, values = []) {
      // Prisma binds values by their JavaScript type; pg-boss's SQL casts its parameters itself.
      const bound = values.map((v) =>
        v === undefined ? null : typeof v === 'object' && v !== null && !(v instanceof Date) ? JSON.stringify(v) : v,
      );
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...bound) };
    },
  };
}

/**
 * The durable queue of webhook deliveries: pg-boss on the same database as everything else —
 * PostgreSQL (its own pool, schema `pgboss`) or the embedded PGlite (through `pgliteDb`). Jobs are
 * inserted in the transaction of the change that causes the event (`enqueue(tx, …)`), so a
 * rolled-back change sends nothing and a committed one is never lost; any instance's worker takes
 * them (`SELECT … FOR UPDATE SKIP LOCKED`). A job whose worker died mid-attempt expires after
 * 30 s and is taken again by whichever instance is free (docs/WEBHOOKS.md, "Delivery").
 */
@Injectable()
export class WebhookQueue {
  private readonly logger = new Logger(WebhookQueue.name);
  private boss?: PgBoss;
  private started = false;
  private readonly workerIds: string[] = [];
  private wakeTimer?: NodeJS.Timeout;
  /** Wakes at the times jobs enqueued for later fall due, one timer per second of the clock. */
  private readonly dueWakes = new Map<number, NodeJS.Timeout>();
  private readonly schedules: { name: string; cron: string; handler: () => Promise<void> }[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
  ) {}

  /** Starts pg-boss (creating or migrating its schema) and this instance's worker. */
  async start(handler: (job: DeliveryJob) => Promise<void>): Promise<void> {
    const pglite = this.prisma.pglite;
    const timers = TIMERS[pglite === undefined ? 'postgres' : 'embedded'];
    const boss = new PgBoss({
      ...(pglite !== undefined ? { db: pgliteDb(pglite) } : { connectionString: this.config.databaseUrl, max: 4 }),
      schema: SCHEMA,
      application_name: 'gatehouse-webhooks',
      maintenanceIntervalSeconds: timers.maintenance,
      cronWorkerIntervalSeconds: timers.cronWorker,
    });
    boss.on('error', (err: Error) => this.logger.warn(`Webhook queue: ${err.message}`));
    await boss.start();
    await boss
      .createQueue(QUEUE, { name: QUEUE, retryLimit: 10, retryDelay: RETRY_DELAY_SECONDS, expireInSeconds: 30 })
      .catch((err: Error) => {
        if (!/already exists/.test(err.message)) throw err;
      });
    // A batch's attempts run side by side; each job's outcome is its own: one that throws (cut short by
    // a stop) is failed for pg-boss to retry, the others complete. A worker whose batch was full asks
    // for the next at once: pg-boss would otherwise wait out the polling interval between batches.
    for (let i = 0; i < WORKERS; i++) {
      const id = await boss.work<DeliveryJob>(QUEUE, { batchSize: BATCH, pollingIntervalSeconds: timers.poll }, async (jobs) => {
        await Promise.all(
          jobs.map((job) =>
            handler(job.data).catch((err: Error) => {
              this.logger.warn(`Webhook delivery ${job.data.deliveryId}: ${err.message}`);
              this.wakeAt(Date.now() + RETRY_DELAY_SECONDS * 1000);
              return boss.fail(QUEUE, job.id);
            }),
          ),
        );
        if (jobs.length === BATCH) boss.notifyWorker(id);
      });
      this.workerIds.push(id);
    }
    for (const { name, cron, handler: run } of this.schedules) {
      await boss.createQueue(name, { name, policy: 'singleton', expireInSeconds: 600 }).catch((err: Error) => {
        if (!/already exists/.test(err.message)) throw err;
      });
      await boss.schedule(name, cron);
      await boss.work(name, { batchSize: 1, pollingIntervalSeconds: timers.schedulePoll }, () => run());
    }
    this.boss = boss;
    this.started = true;
    if (pglite !== undefined) await this.wakeForJobsPutOff(pglite);
  }

  /**
   * The embedded database's one instance wakes when the jobs a previous run of it put off (retries)
   * fall due, as it does for its own: otherwise they waited for the next poll, up to a minute late.
   * The earliest thousand start times; later ones at a poll.
   */
  private async wakeForJobsPutOff(pglite: PGlite): Promise<void> {
    const { rows } = await pglite.query<{ at: Date }>(
      `SELECT DISTINCT start_after AS at FROM ${SCHEMA}.job WHERE name = $1 AND state < 'active' AND start_after > now() ORDER BY at LIMIT 1000`,
      [QUEUE],
    );
    for (const { at } of rows) this.wakeAt(at.getTime());
  }

  /**
   * Runs `handler` on `cron` (UTC) once the queue starts, once per slot across every instance:
   * pg-boss's scheduler puts one job in the queue `name` per slot, and whichever instance is free
   * takes it. Called from constructors, before `start`.
   */
  schedule(name: string, cron: string, handler: () => Promise<void>): void {
    this.schedules.push({ name, cron, handler });
  }

  /** Enqueues an attempt of each delivery in `tx`, to start at once or at `startAfter`. */
  async enqueue(tx: Prisma.TransactionClient, deliveryIds: readonly string[], startAfter?: Date): Promise<void> {
    const boss = this.requireBoss();
    if (deliveryIds.length === 0) return;
    await boss.insert(
      deliveryIds.map((deliveryId) => ({ name: QUEUE, data: { deliveryId } satisfies DeliveryJob, startAfter: startAfter?.toISOString() })),
      { db: transactionDb(tx) },
    );
    // This instance's workers look when the jobs are due, not at their next poll (the others poll every second).
    if (startAfter !== undefined) this.wakeAt(startAfter.getTime());
    else if (this.wakeTimer === undefined) {
      this.wakeTimer = setTimeout(() => {
        this.wakeTimer = undefined;
        this.wake();
      }, WAKE_AFTER_ENQUEUE_MS);
      this.wakeTimer.unref();
    }
  }

  /** Lets the attempts in hand finish (up to 12 s: a 10 s delivery and its record), then stops taking jobs. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.wakeTimer);
    for (const timer of this.dueWakes.values()) clearTimeout(timer);
    this.dueWakes.clear();
    const boss = this.boss;
    if (boss === undefined) return;
    await new Promise<void>((resolve) => {
      boss.once('stopped', () => resolve());
      void boss.stop({ graceful: true, wait: false, timeout: 12_000, close: true }).catch(() => resolve());
    });
  }

  /** Wakes this instance's workers once `at` (ms since the epoch) has passed; wakes within one second of the clock share a timer. */
  private wakeAt(at: number): void {
    const second = Math.ceil(at / 1000);
    if (!this.started || this.dueWakes.has(second)) return;
    const timer = setTimeout(
      () => {
        this.dueWakes.delete(second);
        this.wake();
      },
      Math.min(MAX_TIMER_MS, second * 1000 - Date.now() + WAKE_AFTER_ENQUEUE_MS),
    );
    timer.unref();
    this.dueWakes.set(second, timer);
  }

  private wake(): void {
    if (this.started) for (const id of this.workerIds) this.boss?.notifyWorker(id);
  }

  private requireBoss(): PgBoss {
    if (this.boss === undefined) throw new Error('The webhook queue is not started');
    return this.boss;
  }
}
