// A CPU bot, as cheap as a bot gets in Node: it asks the widget's endpoints for challenges and solves
// them with node:crypto's synchronous PBKDF2 from counter 0, for a given time, then prints JSON
// {nonces, refused, cpuMs, wallMs}. Run as a child process so its CPU time is its own:
//   node widget-bot.cjs <baseUrl> <widgetKey> <seconds>
const { pbkdf2Sync } = require('node:crypto');

const [base, key, seconds] = process.argv.slice(2);
const headers = { 'x-api-key': key, 'content-type': 'application/json' };

function solve({ parameters: p }) {
  const password = Buffer.alloc(p.nonce.length / 2 + 4);
  Buffer.from(p.nonce, 'hex').copy(password);
  const salt = Buffer.from(p.salt, 'hex');
  for (let counter = 0; counter <= 0xffffffff; counter++) {
    password.writeUInt32BE(counter, password.length - 4);
    const derivedKey = pbkdf2Sync(password, salt, p.cost, p.keyLength, 'sha256').toString('hex');
    if (derivedKey.startsWith(p.keyPrefix)) return { counter, derivedKey };
  }
  throw new Error('not solved');
}

async function main() {
  const start = Date.now();
  const cpu = process.cpuUsage();
  let nonces = 0;
  let refused = 0;
  while (Date.now() - start < Number(seconds) * 1000) {
    const res = await fetch(`${base}/api/v1/widget/challenge`, { headers });
    if (res.status !== 200) {
      refused += 1;
      continue;
    }
    const challenge = await res.json();
    const altcha = Buffer.from(JSON.stringify({ challenge, solution: solve(challenge) })).toString('base64');
    const nonce = await fetch(`${base}/api/v1/widget/nonces`, { method: 'POST', headers, body: JSON.stringify({ altcha }) });
    if (nonce.status === 201) nonces += 1;
    else refused += 1;
  }
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ nonces, refused, cpuMs: (used.user + used.system) / 1000, wallMs: Date.now() - start }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
