import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where every app started by the e2e tests writes its log lines (LOG_FILE), one file per process. */
export const LOG_DIR = resolve(__dirname, '../../test-artifacts/logs');

/** Secrets as they look: API keys, invitation, reset and nonce tokens, JWTs; and the passwords the tests use. */
const SECRET_PATTERNS: ReadonlyArray<[string, RegExp]> = [
  ['API key', /gh_[0-9A-Za-z]{38}/],
  ['invitation token', /ghi_[A-Za-z0-9_-]{43}/],
  ['password reset token', /ghr_[A-Za-z0-9_-]{43}/],
  ['nonce', /ghn_[A-Za-z0-9_-]{43,}/],
  ['session cookie', /ghs_[A-Za-z0-9_-]{43}/],
  ['JWT', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/],
];
const TEST_PASSWORDS = [
  'correct horse battery staple',
  'a brand new passphrase',
  'smoke test password',
  'not the password',
  'not the current one',
];

export interface Leak {
  readonly file: string;
  readonly line: number;
  readonly kind: string;
}

export function findSecrets(text: string, file = '(text)'): Leak[] {
  const leaks: Leak[] = [];
  text.split('\n').forEach((content, i) => {
    for (const [kind, pattern] of SECRET_PATTERNS) if (pattern.test(content)) leaks.push({ file, line: i + 1, kind });
    for (const password of TEST_PASSWORDS) if (content.includes(password)) leaks.push({ file, line: i + 1, kind: 'password' });
  });
  return leaks;
}

export function logFileFor(name: string): string {
  mkdirSync(LOG_DIR, { recursive: true });
  return join(LOG_DIR, `${name}.log`);
}

export function clearLogs(): void {
  rmSync(LOG_DIR, { recursive: true, force: true });
}

/** Every leak in every log file of this run (the leak's place and kind, never the secret itself). */
export function scanLogs(): { files: number; lines: number; leaks: Leak[] } {
  if (!existsSync(LOG_DIR)) return { files: 0, lines: 0, leaks: [] };
  let lines = 0;
  const leaks: Leak[] = [];
  const files = readdirSync(LOG_DIR).filter((f) => f.endsWith('.log'));
  for (const f of files) {
    const text = readFileSync(join(LOG_DIR, f), 'utf8');
    lines += text.split('\n').length;
    leaks.push(...findSecrets(text, f));
  }
  return { files: files.length, lines, leaks };
}
