import { Injectable } from '@nestjs/common';

/** A key that began or stopped surging on this instance. */
export interface SurgeChange {
  readonly keyId: string;
  readonly accountId: string;
  readonly started: boolean;
  /** The highest level seen while it surged (started changes). */
  readonly level: number;
}

interface Surging {
  readonly accountId: string;
  level: number;
  lastAt: number;
  reported: boolean;
}

/** A key whose challenges have been at level 0 (or absent) this long has stopped surging. */
export const SURGE_QUIET_MS = 2 * 60_000;

/**
 * Which API keys are surging (their challenge rate far above their usual, docs/API.md, "Challenge
 * difficulty") on this instance: noted on the request path at the cost of a map update per surging
 * challenge, read off it (`drain`) for the `widget.surge_started` / `widget.surge_ended` webhook
 * events. A key has stopped surging after SURGE_QUIET_MS without a raised level.
 */
@Injectable()
export class SurgeLog {
  private static readonly MAX_KEYS = 10_000;
  private readonly surging = new Map<string, Surging>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The key's level for the challenge just issued (0: not surging). */
  observe(keyId: string, accountId: string, level: number): void {
    if (level === 0) return;
    const s = this.surging.get(keyId);
    if (s !== undefined) {
      s.level = Math.max(s.level, level);
      s.lastAt = this.now();
    } else if (this.surging.size < SurgeLog.MAX_KEYS) this.surging.set(keyId, { accountId, level, lastAt: this.now(), reported: false });
  }

  /** Keys that began surging since the last call, and keys that have been quiet long enough to have stopped by `now`. */
  drain(now = this.now()): SurgeChange[] {
    const changes: SurgeChange[] = [];
    const quietSince = now - SURGE_QUIET_MS;
    for (const [keyId, s] of this.surging) {
      if (s.lastAt <= quietSince) {
        this.surging.delete(keyId);
        if (s.reported) changes.push({ keyId, accountId: s.accountId, started: false, level: s.level });
      } else if (!s.reported) {
        s.reported = true;
        changes.push({ keyId, accountId: s.accountId, started: true, level: s.level });
      }
    }
    return changes;
  }
}
