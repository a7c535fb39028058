import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from './app-config';

const MIN_BYTES = 32;

/**
 * JWT_SECRET when set; otherwise (never in production, loadConfig refuses that) a secret generated
 * once and kept in DATA_DIR, so tokens survive restarts of the embedded default. A kept file too
 * short to be a secret (an interrupted write) never signed anything, so it is replaced.
 */
export function resolveJwtSecret(config: AppConfig): string {
  if (config.jwt.secret !== undefined) return config.jwt.secret;
  const file = join(config.dataDir, 'jwt-secret');
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(kept) >= MIN_BYTES) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
