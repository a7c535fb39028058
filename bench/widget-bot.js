'use strict';
// A bot's cost per nonce: solves ALTCHA v2 challenges as a script would, with altcha-lib's own
// `solveChallenge` and its node:crypto PBKDF2 (`altcha-lib/algorithms/pbkdf2`), one challenge after
// another, and measures the CPU time of this process (process.cpuUsage: every thread, so libuv's pool
// where the derivations run is included) and the wall time of each solve.
// Usage: node bench/widget-bot.js <challenges.json>   (a JSON array of {parameters, signature});
// prints a JSON array of {counter, cpuMs, wallMs}. bench/widget-solve.js runs it pinned to one core.
const fs = require('node:fs');

async function main() {
  const { solveChallenge } = await import('altcha-lib');
  const { deriveKey } = await import('altcha-lib/algorithms/pbkdf2');
  const challenges = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  // Warm-up: the first derivations pay for loading and JIT.
  await solveChallenge({ challenge: { parameters: { ...challenges[0].parameters } }, deriveKey, timeout: 2000 });
  const out = [];
  for (const challenge of challenges) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const solution = await solveChallenge({ challenge, deriveKey, timeout: 600_000 });
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    if (!solution) throw new Error('bot: a challenge was not solved');
    out.push({ counter: solution.counter, cpuMs: (c.user + c.system) / 1000, wallMs });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
