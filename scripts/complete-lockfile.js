// The npm mirror this project is built behind serves only the Linux builds of packages
// that ship one optional package per platform (@swc/core-*, @unrs/resolver-binding-*),
// so `npm install` leaves the others out of package-lock.json and `npm ci` then refuses
// the lock as out of sync. A lock made against the public registry lists every platform
// package; this restores those entries, with their os/cpu, so npm skips them on other
// platforms without fetching, and installs them by version where they exist.
//
//   node scripts/complete-lockfile.js    (after any `npm install` that changed the lock)
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'];

const file = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    if (lock.packages[target] || lock.packages[`${path}/node_modules/${name}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = OS.find((o) => parts.includes(o));
    const cpu = CPU.find((c) => parts.includes(c));
    // keys in the order npm writes them, so a later `npm install` leaves the file alone
    lock.packages[target] = {
      version,
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) =>
    a === '' ? -1 : b === '' ? 1 : a.localeCompare(b),
  ),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform package entries restored`);
