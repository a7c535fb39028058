import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from './app-config';

export const MIN_SECRET_BYTES = 32;

/**
 * JWT_SECRET when set; otherwise (never in production, loadConfig refuses that) a secret generated
 * once and kept in DATA_DIR, so tokens survive restarts of the embedded default.
 */
export function resolveJwtSecret(config: AppConfig): string {
  return config.jwt.secret ?? keptSecret(config.dataDir, 'jwt-secret');
}

/**
 * The secrets that sign widget challenges, the first signing and every one verifying (WIDGET_SECRETS,
 * comma-separated, so a new secret can be put first while challenges signed by the old one are still
 * out); otherwise (never in production) one generated once and kept in DATA_DIR.
 */
export function resolveWidgetSecrets(config: AppConfig): readonly string[] {
  return config.widget.secrets.length > 0 ? config.widget.secrets : [keptSecret(config.dataDir, 'widget-secret')];
}

/**
 * The secret kept in `dataDir/fileName`, generated on first use. A kept file too short to be a
 * secret (an interrupted write) never signed anything, so it is replaced.
 */
function keptSecret(dataDir: string, fileName: string): string {
  const file = join(dataDir, fileName);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(kept) >= MIN_SECRET_BYTES) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
