import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig, IN_MEMORY } from './app-config';

export const MIN_SECRET_BYTES = 32;

/**
 * JWT_SECRET when set; otherwise (never in production, loadConfig refuses that) a secret generated
 * once and kept in DATA_DIR, so tokens survive restarts of the embedded default.
 */
export function resolveJwtSecret(config: AppConfig): string {
  return config.jwt.secret ?? keptSecret(config, 'jwt-secret');
}

/**
 * The secrets that sign widget challenges, the first signing and every one verifying (WIDGET_SECRETS,
 * comma-separated, so a new secret can be put first while challenges signed by the old one are still
 * out); otherwise (never in production) one generated once and kept in DATA_DIR.
 */
export function resolveWidgetSecrets(config: AppConfig): readonly string[] {
  return config.widget.secrets.length > 0 ? config.widget.secrets : [keptSecret(config, 'widget-secret')];
}

/**
 * The key that encrypts TOTP secrets at rest and keys recovery-code hashes: MFA_ENCRYPTION_KEY when
 * set; otherwise (never in production) one generated once and kept in DATA_DIR. Losing it loses
 * every enrolled TOTP and recovery code (members then sign in with a passkey or get a reset).
 */
export function resolveMfaKey(config: AppConfig): string {
  return config.mfa.encryptionKey ?? keptSecret(config, 'mfa-key');
}

/** With DATA_DIR=memory:// a generated secret lives as long as the configuration it was made for. */
const inMemory = new WeakMap<AppConfig, Map<string, string>>();

/**
 * The secret kept in `DATA_DIR/name`, generated on first use; with DATA_DIR=memory:// it is kept in
 * this process only and no file is written. A kept file too short to be a secret (an interrupted
 * write) never signed anything, so it is replaced.
 */
function keptSecret(config: AppConfig, name: string): string {
  if (config.dataDir === IN_MEMORY) {
    let secrets = inMemory.get(config);
    if (secrets === undefined) inMemory.set(config, (secrets = new Map<string, string>()));
    let secret = secrets.get(name);
    if (secret === undefined) secrets.set(name, (secret = newSecret()));
    return secret;
  }
  const file = join(config.dataDir, name);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(kept) >= MIN_SECRET_BYTES) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const secret = newSecret();
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function newSecret(): string {
  return randomBytes(48).toString('base64url');
}
