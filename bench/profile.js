'use strict';
// Aggregates a V8 .cpuprofile by self time: per module (npm package, gatehouse dist/ folder, node
// core area, GC) and per function. `node bench/profile.js file.cpuprofile` prints both tables.
const fs = require('node:fs');

/** Where a call frame's code lives, as a short label. */
function moduleOf({ url, functionName }) {
  if (url.startsWith('wasm://')) return '@electric-sql/pglite (wasm)';
  if (!url) {
    if (/^\((garbage collector|program|idle|root)\)$/.test(functionName)) return functionName;
    return '(V8 builtins / native)';
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = /\/dist\/(?:src\/)?([^/]+)/.exec(url);
  if (dist) return `gatehouse ${dist[1].endsWith('.js') ? dist[1] : `${dist[1]}/`}`;
  if (url.startsWith('node:')) {
    const parts = url
      .slice(5)
      .replace(/^internal\//, '')
      .split('/');
    return `node:${parts[0].replace(/\.js$/, '').replace(/^_/, '').replace(/_.*$/, '')}`;
  }
  return url.replace(/^file:\/\//, '');
}

/** Self time (ms) per node id, from samples and timeDeltas. */
function selfTimes(profile) {
  const self = new Map();
  const { samples = [], timeDeltas = [] } = profile;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; attribute the interval after it to sample i.
    const dt = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000;
    self.set(samples[i], (self.get(samples[i]) || 0) + dt);
  }
  return self;
}

/** Modules on each node's stack (root to node), each once: for inclusive time per module. */
function stackModules(profile) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const memo = new Map();
  const get = (id) => {
    if (memo.has(id)) return memo.get(id);
    const up = parent.has(id) ? get(parent.get(id)) : new Set();
    const set = new Set(up);
    set.add(moduleOf(byId.get(id).callFrame));
    memo.set(id, set);
    return set;
  };
  return get;
}

function summarize(profile, top = 15) {
  const self = selfTimes(profile);
  const modulesOn = stackModules(profile);
  const inclusive = new Map();
  const byModule = new Map();
  const byFunction = new Map();
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) || 0;
    if (!ms) continue;
    const mod = moduleOf(node.callFrame);
    if (mod === '(idle)') {
      idle += ms;
      continue;
    }
    total += ms;
    for (const m of modulesOn(node.id)) inclusive.set(m, (inclusive.get(m) || 0) + ms);
    byModule.set(mod, (byModule.get(mod) || 0) + ms);
    const fn = `${node.callFrame.functionName || '(anonymous)'} — ${mod}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) || 0) + ms);
  }
  const rows = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / total, inclusive: inclusive.get(name) }));
  return { totalMs: total, idleMs: idle, modules: rows(byModule), functions: rows(byFunction) };
}

function markdown(summary, { requests } = {}) {
  const perReq = (ms) => (requests ? ` | ${((ms * 1000) / requests).toFixed(1)}` : '');
  const head = requests ? ' | µs/request' : '';
  const sep = requests ? '|---' : '';
  const lines = [`| module | self ms | self share${head} | inclusive share |`, `|---|---|---${sep}|---|`];
  for (const r of summary.modules) {
    const incl = r.inclusive !== undefined ? `${((100 * r.inclusive) / summary.totalMs).toFixed(1)}%` : '';
    lines.push(`| ${r.name} | ${r.ms.toFixed(0)} | ${(r.share * 100).toFixed(1)}%${perReq(r.ms)} | ${incl} |`);
  }
  lines.push('', `| function — module:line (self time) | ms | share |`, '|---|---|---|');
  for (const r of summary.functions)
    lines.push(`| ${r.name.replace(/\|/g, '\\|')} | ${r.ms.toFixed(0)} | ${(r.share * 100).toFixed(1)}% |`);
  return lines.join('\n');
}

/** Coarse groups for comparing two profiles: whose code the self time is in. */
function groupOf(mod) {
  if (mod.startsWith('gatehouse ') || mod.endsWith('/bench/reference-server.js'))
    return "own code (Gatehouse's dist/, reference-server.js's guard)";
  if (/^(passport|passport-[a-z]+|@nestjs\/passport)$/.test(mod)) return 'passport-headerapikey, passport, @nestjs/passport';
  if (mod === '@nestjs/throttler') return '@nestjs/throttler';
  if (/^(@nestjs\/|rxjs$|reflect-metadata$|tslib$|iterare$)/.test(mod)) return 'NestJS (core, common, platform-fastify)';
  if (/^(fastify$|find-my-way$|@fastify\/|toad-cache$|avvio$|light-my-request$|fast-|safe-regex2$|ret$|abstract-logging$)/.test(mod))
    return 'Fastify';
  if (mod === 'lru-cache') return 'lru-cache (API-key and account caches)';
  if (/^(@prisma\/|@electric-sql\/|pglite-prisma-adapter$|pg$|pg-|ioredis$)/.test(mod)) return 'database and Redis clients';
  if (/^(pino|nestjs-pino$|sonic-boom$|thread-stream$)/.test(mod)) return 'logging';
  if (mod === '(garbage collector)') return 'GC';
  if (mod.startsWith('node:') || mod === '(V8 builtins / native)' || mod === '(program)')
    return 'Node + V8 (HTTP, streams, ticks, promise jobs, socket writes, SHA-256)';
  return 'other';
}

/** Self µs per request by group, for profiles of `requests` requests each: [group, a, b] rows, largest difference first. */
function compareGroups(a, b) {
  const perGroup = ({ profile, requests }) => {
    const self = selfTimes(profile);
    const out = new Map();
    for (const node of profile.nodes) {
      const ms = self.get(node.id) || 0;
      const mod = moduleOf(node.callFrame);
      if (!ms || mod === '(idle)' || mod === '(root)') continue;
      const g = groupOf(mod);
      out.set(g, (out.get(g) || 0) + (ms * 1000) / requests);
    }
    return out;
  };
  const A = perGroup(a);
  const B = perGroup(b);
  const rows = [...new Set([...A.keys(), ...B.keys()])].map((g) => [g, A.get(g) || 0, B.get(g) || 0]);
  rows.sort((x, y) => y[2] - y[1] - (x[2] - x[1]));
  return rows;
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node bench/profile.js <file.cpuprofile> [top]');
    process.exit(2);
  }
  const summary = summarize(JSON.parse(fs.readFileSync(file, 'utf8')), Number(process.argv[3] || 20));
  console.log(`busy: ${summary.totalMs.toFixed(0)} ms, idle: ${summary.idleMs.toFixed(0)} ms\n`);
  console.log(markdown(summary));
}

module.exports = { summarize, markdown, moduleOf, compareGroups };
