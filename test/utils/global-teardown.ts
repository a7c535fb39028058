import { scanLogs } from './log-scan';

/** After the whole e2e run: no API key, invitation token, JWT or password in any log line. */
export default function globalTeardown(): void {
  const { files, lines, leaks } = scanLogs();
  if (leaks.length > 0) {
    const where = leaks
      .slice(0, 20)
      .map((l) => `${l.file}:${l.line} (${l.kind})`)
      .join('\n  ');
    throw new Error(`Secrets reached the logs (${leaks.length}):\n  ${where}`);
  }
  console.log(`\nLog scan: ${lines} lines in ${files} files, no secret found.`);
}
