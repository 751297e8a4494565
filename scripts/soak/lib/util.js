// Small helpers shared by the soak test's modules.
const net = require('node:net');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const started = Date.now();

/** Milliseconds since the soak process started (monotonic enough for a 10-minute run). */
const elapsed = () => Date.now() - started;

function log(message) {
  const s = (elapsed() / 1000).toFixed(1).padStart(7);
  process.stdout.write(`[soak ${s}s] ${message}\n`);
}

/** True when something answers on 127.0.0.1:port. */
function portInUse(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `preferred` when nothing listens on it, otherwise a port the OS hands out. */
async function freePort(preferred) {
  if (preferred && !(await portInUse(preferred))) return preferred;
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

/** count, p50, p95, p99 and max of a list of latencies (ms). */
function latencySummary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length ? sorted[sorted.length - 1] : null),
  };
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
const randomInt = (min, max) => min + Math.floor(Math.random() * (max - min + 1));

/** A decimal string of `minor` units at `scale` digits ("1999", 2 → "19.99"). */
function formatMinor(minor, scale) {
  const value = BigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

module.exports = {
  sleep,
  elapsed,
  log,
  portInUse,
  freePort,
  latencySummary,
  pick,
  randomInt,
  formatMinor,
};
