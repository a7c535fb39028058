'use strict';
// Preloaded into the app by bench/run.js and bench/ab.js --cpu-profile (`node -r bench/cpu-profile-preload.js dist/main.js`);
// the profile goes to CPU_PROFILE_OUT, else to <tmpdir>/cpu-<pid>.cpuprofile.
// The same V8 sampling profiler as `node --cpu-prof`, but started and stopped by SIGWINCH, so the
// profile covers only the load window and is written even though Nest ends the process by
// re-raising SIGTERM (--cpu-prof writes only on a normal exit). Not SIGUSR2: Nest's
// enableShutdownHooks() treats SIGUSR2 as a shutdown signal.
const fs = require('node:fs');
const inspector = require('node:inspector');

const out = process.env.CPU_PROFILE_OUT || require('node:path').join(require('node:os').tmpdir(), `cpu-${process.pid}.cpuprofile`);
const interval = Number(process.env.CPU_PROFILE_INTERVAL_US || 250);
const session = new inspector.Session();
session.connect();
let running = false;

process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval }, () => session.post('Profiler.start')));
    return;
  }
  running = false;
  session.post('Profiler.stop', (err, result) => {
    fs.writeFileSync(out, err ? JSON.stringify({ error: String(err) }) : JSON.stringify(result.profile));
  });
});
