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
 * How often an idle worker looks for due jobs, and the scheduled checks' worker. On PostgreSQL other
 * instances' jobs appear only so. The embedded database has one instance, which wakes its workers
 * itself when a job it enqueued is due (at once, or at its retry time), so its polls are a backstop
 * for what pg-boss retries on its own (an attempt cut short) and retries due across a restart: each
 * poll is a query on the one PGlite (every 5 s, an idle instance used 0.5–0.7 % of a core; now 0.2 %).
 */
const POLL_SECONDS = { postgres: 1, embedded: 60 } as const;
const SCHEDULE_POLL_SECONDS = { postgres: 10, embedded: 60 } as const;
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
    const boss = new PgBoss({
      ...(pglite !== undefined ? { db: pgliteDb(pglite) } : { connectionString: this.config.databaseUrl, max: 4 }),
      schema: SCHEMA,
      application_name: 'gatehouse-webhooks',
      // Expired jobs (a worker that died mid-attempt) are found by the supervisor every 30 s.
      maintenanceIntervalSeconds: 30,
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
    const database = pglite === undefined ? 'postgres' : 'embedded';
    for (let i = 0; i < WORKERS; i++) {
      const pollingIntervalSeconds = POLL_SECONDS[database];
      const id = await boss.work<DeliveryJob>(QUEUE, { batchSize: BATCH, pollingIntervalSeconds }, async (jobs) => {
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
      await boss.work(name, { batchSize: 1, pollingIntervalSeconds: SCHEDULE_POLL_SECONDS[database] }, () => run());
    }
    this.boss = boss;
    this.started = true;
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
