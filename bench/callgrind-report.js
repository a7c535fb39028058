'use strict';
// Reads a callgrind dump of a Node server (bench/ab.js --callgrind --profile) and says where its
// instructions went, per request:
//   node bench/callgrind-report.js <callgrind file> <perf map> <requests> [--top N]
// The server must have run with `node --perf-basic-prof`: V8 then writes /tmp/perf-<pid>.map, which
// names the JIT code that callgrind only knows by address. Two tables:
// - by package: each JavaScript function's own instructions plus those of the V8 builtins, runtime
//   and C++ it calls that do not lead back into JavaScript, shared out among callers in proportion
//   to the instructions each call cost ("attributed"); what no JavaScript function called (libuv's
//   loop, the kernel interface, V8's GC tasks) stays under its shared object.
// - by function: the same attribution, the top N functions.
// Approximate by design: callgrind keeps caller/callee pairs, not stacks.
const fs = require('node:fs');

/** Parses the dump into functions { name, object, self } and calls [caller, callee, inclusive]. */
function parseCallgrind(text) {
  const names = { fn: new Map(), ob: new Map() };
  const fns = new Map(); // key "ob\0fn" -> { name, object, self }
  const calls = new Map(); // "callerKey\x01calleeKey" -> inclusive
  let ob = '';
  let fn = null;
  let cob = null;
  let cfn = null;
  let pendingCall = false;
  const resolve = (kind, spec) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names[kind].set(m[1], m[2]);
    return names[kind].get(m[1]);
  };
  const fnOf = (object, rawName) => {
    const name = rawName.replace(/'\d+$/, ''); // callgrind's recursion depth: one function
    const key = `${object}\0${name}`;
    let f = fns.get(key);
    if (!f) fns.set(key, (f = { key, name, object, self: 0 }));
    return f;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const c = line.charCodeAt(0);
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42) {
      // a cost line: position, then the Ir count
      const cost = Number(line.split(' ')[1] || 0);
      if (pendingCall) {
        const callee = fnOf(cob ?? ob, cfn);
        const k = `${fn.key}\x01${callee.key}`;
        calls.set(k, (calls.get(k) || 0) + cost);
        pendingCall = false;
        cob = null;
      } else if (fn) fn.self += cost;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'ob') ob = resolve('ob', value);
    else if (key === 'fn') fn = fnOf(ob, resolve('fn', value));
    else if (key === 'cob') cob = resolve('ob', value);
    else if (key === 'cfn') cfn = resolve('fn', value);
    else if (key === 'calls') pendingCall = true;
  }
  return { fns, calls };
}

/** The perf map's entries, sorted by start; later entries win where code was reused. */
function readPerfMap(file) {
  const entries = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) entries.push({ start: parseInt(m[1], 16), end: parseInt(m[1], 16) + parseInt(m[2], 16), name: m[3], order: entries.length });
  }
  entries.sort((a, b) => a.start - b.start || a.order - b.order);
  return (address) => {
    let lo = 0;
    let hi = entries.length - 1;
    let found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (entries[mid].start <= address) {
        lo = mid + 1;
        if (address < entries[mid].end) found = entries[mid];
      } else hi = mid - 1;
    }
    // a later entry covering the same address (code space reused) wins
    for (let i = lo - 1; i >= 0 && entries[i].start > address - 65536; i--) {
      const e = entries[i];
      if (e.start <= address && address < e.end && (!found || e.order > found.order)) found = e;
    }
    return found && found.name;
  };
}

/** "JS:*ping /x/dist/y.js:3:10" -> { js: true, name: "ping /x/dist/y.js:3", where: "gatehouse dist/y.js" } */
function describe(fn, nameAt) {
  let name = fn.name;
  // JIT code has no symbol: callgrind names it by address, which the perf map resolves. (An
  // address in a shared object without symbols stays as it is.)
  if (/^0x[0-9a-f]+$/.test(name)) name = nameAt(parseInt(name, 16)) || name;
  const js = /^(JS|LazyCompile|Function|Script):/.test(name);
  if (js) name = name.replace(/^[A-Za-z]+:[*~^+]?/, '').replace(/:\d+$/, '');
  const file = js ? name.slice(name.lastIndexOf(' ') + 1) : '';
  return { js, name, where: js ? packageOf(file) : objectOf(fn.object, name) };
}

function packageOf(file) {
  const nm = file.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = file.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (file.startsWith('node:')) return `node: ${file.slice(5).split(':')[0]}`;
  const dist = file.indexOf('/dist/');
  if (dist >= 0) return `gatehouse ${file.slice(dist + 1).split(':')[0]}`;
  if (file.includes('/bench/')) return `bench ${file.slice(file.indexOf('/bench/') + 1).split(':')[0]}`;
  return file.split(':')[0] || '(anonymous)';
}

function objectOf(object, name) {
  if (name.startsWith('Builtins_') || name.startsWith('Builtin:')) return '(V8 builtins, no JS caller)';
  // Seen on Node 20: 15-25% of a server's instructions charged to an unnamed address in the dynamic
  // loader, the program's entry frame, growing with the JavaScript work (bare 15k, Gatehouse 24k a
  // request). No loader code runs per request: this is code callgrind did not place in a function.
  if (/^0x[0-9a-f]+$/.test(name) && /ld-linux/.test(object || '')) return '(not placed by callgrind: charged to the entry frame)';
  const base = (object || '???').split('/').pop();
  return `(${base})`;
}

/**
 * Moves the instructions of code that is not JavaScript up to its callers, in proportion to what
 * each call cost, until it reaches JavaScript or code nobody called. A call into code that later
 * calls JavaScript (Builtins_Call, a C++ callback) passes up only the part that is not JavaScript.
 */
function attribute({ fns, calls }, nameAt) {
  const nodes = new Map();
  for (const f of fns.values()) nodes.set(f.key, { ...describe(f, nameAt), self: f.self, callers: [], own: f.self });
  for (const [k, incl] of calls) {
    const [caller, callee] = k.split('\x01');
    if (caller !== callee) nodes.get(callee).callers.push({ caller, incl });
  }
  // Non-JS nodes in callee-first order would be ideal; repeated passes approximate it.
  const pending = new Map();
  for (const [k, n] of nodes) if (!n.js) pending.set(k, n.own);
  for (let pass = 0; pass < 50 && pending.size; pass++) {
    const next = new Map();
    for (const [k, amount] of pending) {
      const n = nodes.get(k);
      const total = n.callers.reduce((a, c) => a + c.incl, 0);
      if (total === 0 || amount < 1) continue;
      n.own -= amount;
      for (const { caller, incl } of n.callers) {
        const share = (amount * incl) / total;
        const p = nodes.get(caller);
        p.own += share;
        if (!p.js) next.set(caller, (next.get(caller) || 0) + share);
      }
    }
    pending.clear();
    for (const [k, v] of next) pending.set(k, v);
  }
  return [...nodes.values()];
}

function report(callgrindFile, perfMap, requests, top = 40) {
  const parsed = parseCallgrind(fs.readFileSync(callgrindFile, 'utf8'));
  const nodes = attribute(parsed, readPerfMap(perfMap));
  const total = nodes.reduce((a, n) => a + n.self, 0);
  const per = (x) => (x / requests / 1000).toFixed(1);
  const byWhere = new Map();
  for (const n of nodes) byWhere.set(n.where, (byWhere.get(n.where) || 0) + n.own);
  const byName = new Map();
  for (const n of nodes) {
    const k = n.js ? n.name : `${n.name} ${n.where}`;
    byName.set(k, (byName.get(k) || 0) + n.own);
  }
  const lines = [
    `${per(total)}k instructions per request (main thread, ${requests} requests)`,
    '',
    '| package or object | k instr/req | share |',
    '|---|---|---|',
  ];
  for (const [w, v] of [...byWhere].sort((a, b) => b[1] - a[1]))
    if (v / requests >= 50) lines.push(`| ${w} | ${per(v)} | ${((100 * v) / total).toFixed(1)}% |`);
  lines.push('', `| function (with the builtins and runtime it calls) | k instr/req |`, '|---|---|');
  for (const [name, v] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`| ${name.replace(/\|/g, '\\|')} | ${per(v)} |`);
  return lines.join('\n');
}

module.exports = { report };

if (require.main === module) {
  const [file, map, requests] = process.argv.slice(2);
  const i = process.argv.indexOf('--top');
  if (!file || !map || !requests) {
    console.error('usage: node bench/callgrind-report.js <callgrind file> <perf map> <requests> [--top N]');
    process.exit(2);
  }
  console.log(report(file, map, Number(requests), i > 0 ? Number(process.argv[i + 1]) : 40));
}
