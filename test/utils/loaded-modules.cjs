// Preloaded into an app process (NODE_OPTIONS=--require): on SIGUSR2 it writes the paths of every
// CommonJS module the process has loaded, as JSON, to LOADED_MODULES_FILE (whole, by a rename).
const { renameSync, writeFileSync } = require('node:fs');

process.on('SIGUSR2', () => {
  const file = process.env.LOADED_MODULES_FILE;
  writeFileSync(`${file}.part`, JSON.stringify(Object.keys(require.cache)));
  renameSync(`${file}.part`, file);
});
