'use strict';
/**
 * `npm run bench`: the API against a bare Fastify + pg baseline, side by side, on loopback.
 *
 * 1. A benchmark database (BENCH_DATABASE_URL) is created, migrated and seeded with
 *    BENCH_PRODUCTS products, unless it already holds that seed.
 * 2. The built API (as `npm run start:prod` runs it, NODE_ENV=production, Redis rate
 *    limits on, ETags on) and bench/baseline.js start next to each other.
 * 3. Each scenario runs against both, interleaved, BENCH_ROUNDS times (the order of the two
 *    alternates), each run BENCH_DURATION seconds of autocannon after a warm-up of at
 *    least 2 s and BENCH_WARMUP_REQUESTS requests per server.
 * 4. A table and bench/results/<time>.json (plus latest.json) give req/s, p50, p99 and
 *    the ratio to the baseline; the issue's targets are checked and the stock invariant
 *    (no oversell) is verified after the order scenario.
 */
const { fork, spawn } = require('node:child_process');
const { mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { randomUUID } = require('node:crypto');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { isSeeded, seed, stockedSkus } = require('./seed');
const { checkTargets } = require('./targets');

const ROOT = join(__dirname, '..');
const env = {
  products: Number(process.env.BENCH_PRODUCTS ?? 1_000_000),
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmupRequests: Number(process.env.BENCH_WARMUP_REQUESTS ?? 5000),
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  databaseUrl:
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/commerce_bench',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  appPort: Number(process.env.BENCH_APP_PORT ?? 3801),
  baselinePort: Number(process.env.BENCH_BASELINE_PORT ?? 3802),
  settleSeconds: Number(process.env.BENCH_SETTLE_S ?? 120),
  // a comma-separated list of words: only the scenarios whose name holds one of them run
  only: (process.env.BENCH_SCENARIOS ?? '').split(',').filter(Boolean),
};
const API_KEY = `bench-${randomUUID()}`;
const WARMUP_MAX_S = 20;
const DEEP = 50_000;
const CATEGORY = 'category-3';
const log = (message) => console.log(`[bench] ${message}`);

async function main() {
  await prepareDatabase();
  const db = new Client({ connectionString: env.databaseUrl });
  await db.connect();
  const children = [];
  try {
    const app = startApp();
    children.push(app);
    const baseline = fork(join(__dirname, 'baseline.js'), [], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl, PORT: String(env.baselinePort) },
    });
    children.push(baseline);
    await Promise.all([waitForApp(), new Promise((ok) => baseline.once('message', ok))]);
    log('API and baseline are up');

    const fixtures = await loadFixtures(db);
    const results = [];
    const pids = { api: app.pid, baseline: baseline.pid };
    for (const scenario of scenarios(fixtures).filter(chosen)) {
      results.push(await runScenario(scenario, pids, () => analyzeWrittenTables(db)));
    }
    const oversell = await checkStock(db);
    const apiRss = await residentAfterRun(app.pid);
    const report = {
      at: new Date().toISOString(),
      machine: machine(),
      settings: { ...env, databaseUrl: undefined, redisUrl: undefined },
      results,
      stock: oversell,
      apiRss,
    };
    report.targets = checkTargets(report);
    print(report);
    const folder = join(__dirname, 'results');
    mkdirSync(folder, { recursive: true });
    const json = JSON.stringify(report, null, 2);
    writeFileSync(join(folder, `${report.at.replace(/[:.]/g, '-')}.json`), json);
    writeFileSync(join(folder, 'latest.json'), json);
    log(`results written to bench/results/latest.json`);
    process.exitCode = report.targets.every((t) => t.met) && oversell.ok ? 0 : 1;
  } finally {
    await db.end();
    for (const child of children) child.kill('SIGTERM');
  }
}

/** Creates the database when missing and (re)seeds it when it holds another seed. */
async function prepareDatabase() {
  const url = new URL(env.databaseUrl);
  const name = url.pathname.slice(1);
  const admin = new Client({
    connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString(),
  });
  await admin.connect();
  try {
    const exists =
      (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (exists) {
      const db = new Client({ connectionString: env.databaseUrl });
      await db.connect();
      const ready = await isSeeded(db, env.products);
      await db.end();
      if (ready) return log(`database ${name} already holds ${env.products} products`);
      await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  await run('node', ['dist/src/database/migrate.js'], { DATABASE_URL: env.databaseUrl });
  const db = new Client({ connectionString: env.databaseUrl });
  await db.connect();
  try {
    const started = Date.now();
    await seed(db, env.products, log);
    log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.end();
  }
}

function startApp() {
  // as `npm run start:prod` starts it, its Node flags included, with no npm in between
  const [command, ...args] = require('../package.json').scripts['start:prod'].split(' ');
  const app = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(env.appPort),
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      BOOTSTRAP_API_KEY: API_KEY,
      // Rate limiting stays on (counted in Redis on every request), with room for the run.
      RATE_LIMIT_PER_HOUR: '1000000000',
      WORKER: 'off',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    },
  });
  app.once('exit', (code) => {
    if (code !== null && code !== 0) log(`API exited with ${code}`);
  });
  return app;
}

async function waitForApp() {
  for (let i = 0; i < 120; i += 1) {
    const ok = await fetch(`http://127.0.0.1:${env.appPort}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the API did not become ready');
}

async function loadFixtures(db) {
  const { rows } = await db.query(
    `SELECT id FROM products TABLESAMPLE SYSTEM (1) WHERE archived_at IS NULL LIMIT 10000`,
  );
  const ids = rows.map((r) => r.id);
  const skus = await stockedSkus(db);

  // The API's own cursor 50,000 items deep, reached by following `next` links.
  let url = `/api/v2/products?category=${CATEGORY}&limit=100`;
  for (let seen = 0; seen < DEEP; seen += 100) {
    const page = await getJson(url);
    url = new URL(page.pagination.next).pathname + new URL(page.pagination.next).search;
  }
  const appCursor = new URL(url, 'http://x').searchParams.get('cursor');
  const { rows: deep } = await db.query(
    `SELECT created_at, id FROM products WHERE category = $1 AND archived_at IS NULL
     ORDER BY created_at DESC, id DESC OFFSET ${DEEP - 1} LIMIT 1`,
    [CATEGORY],
  );
  const baselineCursor = Buffer.from(`${deep[0].created_at.toISOString()},${deep[0].id}`).toString(
    'base64url',
  );
  log(`fixtures: ${ids.length} product ids, ${skus.length} stocked skus, cursors ${DEEP} deep`);
  return { ids, skus, appCursor, baselineCursor };
}

async function getJson(path) {
  const response = await fetch(`http://127.0.0.1:${env.appPort}${path}`, {
    headers: { 'x-api-key': API_KEY },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];

function orderBody(skus) {
  const lines = new Map();
  const count = 1 + Math.floor(Math.random() * 3);
  while (lines.size < count) lines.set(pick(skus), 1 + Math.floor(Math.random() * 2));
  return JSON.stringify({
    customerId: `bench-${Math.floor(Math.random() * 1000)}`,
    lines: [...lines].map(([sku, quantity]) => ({ sku, quantity })),
    shippingAddress: {
      name: 'Bench',
      line1: '1 Loop Road',
      city: 'Berlin',
      postalCode: '10115',
      country: 'DE',
    },
  });
}

/**
 * Each scenario: a request for the API and one for the baseline, the connections it runs
 * at and the status every response must have.
 */
function scenarios({ ids, skus, appCursor, baselineCursor }) {
  const get = (path) => ({ method: 'GET', path });
  const list = `category=${CATEGORY}&limit=20`;
  return [
    {
      name: 'product by id',
      connections: 50,
      status: 200,
      api: () => get(`/api/v2/products/${pick(ids)}`),
      baseline: () => get(`/products/${pick(ids)}`),
    },
    {
      name: '304 revalidation',
      connections: 50,
      status: 304,
      headers: { 'if-none-match': '"1"' },
      api: () => get(`/api/v2/products/${pick(ids)}`),
      baseline: () => get(`/products/${pick(ids)}`),
    },
    {
      name: 'list page 1 + total',
      connections: 10,
      status: 200,
      api: () => get(`/api/v2/products?${list}`),
      baseline: () => get(`/products?${list}`),
    },
    {
      name: `list cursor ${DEEP} deep`,
      connections: 10,
      status: 200,
      api: () => get(`/api/v2/products?${list}&cursor=${appCursor}`),
      baseline: () => get(`/products?${list}&cursor=${baselineCursor}`),
    },
    {
      name: `list page ${DEEP / 20 + 1} (offset)`,
      connections: 10,
      status: 200,
      api: () => get(`/api/v1/products?${list}&page=${DEEP / 20 + 1}`),
      baseline: () => get(`/products?${list}&page=${DEEP / 20 + 1}`),
    },
    createOrder('create order', skus, () => ({ 'idempotency-key': randomUUID() })),
    // What the Idempotency-Key's bookkeeping (claim and answer) costs, which the
    // baseline has no counterpart of (README, Performance); not a target.
    createOrder('order without Idempotency-Key', skus, () => ({})),
  ];
}

function createOrder(name, skus, keyHeaders) {
  return {
    name,
    connections: 50,
    status: 201,
    api: () => ({
      method: 'POST',
      path: '/api/v2/orders',
      headers: { 'content-type': 'application/json', ...keyHeaders() },
      body: orderBody(skus),
    }),
    baseline: () => ({
      method: 'POST',
      path: '/orders',
      headers: { 'content-type': 'application/json' },
      body: orderBody(skus),
    }),
  };
}

const chosen = (scenario) =>
  env.only.length === 0 || env.only.some((word) => scenario.name.includes(word));

async function runScenario(scenario, pids, settleStatistics) {
  const targets = {
    api: {
      port: env.appPort,
      pid: pids.api,
      request: scenario.api,
      headers: { 'x-api-key': API_KEY },
    },
    baseline: {
      port: env.baselinePort,
      pid: pids.baseline,
      request: scenario.baseline,
      headers: {},
    },
  };
  const runs = { api: [], baseline: [] };
  for (const name of ['api', 'baseline']) await warmUp(scenario, targets[name]);
  for (let round = 0; round < env.rounds; round += 1) {
    const order = round % 2 === 0 ? ['api', 'baseline'] : ['baseline', 'api'];
    for (const name of order) {
      await settleStatistics();
      runs[name].push(await load(scenario, targets[name], env.duration));
    }
  }
  const api = summarize(runs.api);
  const baseline = summarize(runs.baseline);
  const result = {
    scenario: scenario.name,
    connections: scenario.connections,
    api,
    baseline,
    ratio: { rps: round2(api.rps / baseline.rps), p50: round2(api.p50 / baseline.p50) },
  };
  log(
    `${scenario.name}: API ${api.rps} req/s p50 ${api.p50} ms p99 ${api.p99} ms; ` +
      `baseline ${baseline.rps} req/s; ratio ${result.ratio.rps}; ` +
      `CPU ms/req ${api.cpuMsPerRequest} vs ${baseline.cpuMsPerRequest}; ` +
      `PostgreSQL CPU ms/req ${api.dbCpuMsPerRequest} vs ${baseline.dbCpuMsPerRequest}; ` +
      `machine busy ${api.machineBusy} vs ${baseline.machineBusy}`,
  );
  return result;
}

/**
 * At least 2 s and BENCH_WARMUP_REQUESTS requests before a scenario is measured on a
 * server, but no more than WARMUP_MAX_S (the baseline's offset page does 5-25 a second). A
 * slow path warmed for 2 s only (600 orders on a slow host) was still being compiled by V8
 * in its first measured round, which charged the first of two scenarios on the same code
 * (the keyed order, before the unkeyed one) for it.
 */
async function warmUp(scenario, target) {
  const first = await load(scenario, target, 2);
  const missing = env.warmupRequests - first.requests;
  if (missing <= 0) return;
  const seconds = Math.ceil(missing / Math.max(first.rps, 1));
  await load(scenario, target, Math.min(seconds, WARMUP_MAX_S));
}

async function load(scenario, target, seconds) {
  const cpuBefore = cpuMs(target.pid);
  const dbCpuBefore = postgresCpuMs();
  const machineBefore = machineTicks();
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections: scenario.connections,
    duration: seconds,
    headers: { ...target.headers, ...scenario.headers },
    requests: [
      {
        setupRequest: (request) => {
          const next = target.request();
          return { ...request, ...next, headers: { ...request.headers, ...next.headers } };
        },
      },
    ],
  });
  const cpu = cpuMs(target.pid) - cpuBefore;
  const dbCpuAfter = postgresCpuMs();
  const machineAfter = machineTicks();
  const dbCpu = dbCpuBefore === null || dbCpuAfter === null ? NaN : dbCpuAfter - dbCpuBefore;
  const expected = result.statusCodeStats[scenario.status]?.count ?? 0;
  const perRequest = (ms) => (result.requests.total > 0 ? ms / result.requests.total : NaN);
  return {
    rps: result.requests.average,
    // the server process's own CPU per answered request: less sensitive than req/s to
    // what else the machine's cores are doing
    cpuMsPerRequest: perRequest(cpu),
    // PostgreSQL's, while only this target was loaded: what its SQL costs the database
    dbCpuMsPerRequest: perRequest(dbCpu),
    // how much of all the machine's cores the run kept busy (the load generator, the
    // server, PostgreSQL and Redis): near 1, req/s is the machine's limit, not the server's
    machineBusy: busyShare(machineBefore, machineAfter),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    unexpected: result.requests.total - expected + result.errors + result.timeouts,
  };
}

function summarize(runs) {
  const mean = (key) => runs.reduce((sum, run) => sum + run[key], 0) / runs.length;
  return {
    rps: Math.round(mean('rps')),
    p50: round2(mean('p50')),
    p99: round2(mean('p99')),
    cpuMsPerRequest: Math.round(mean('cpuMsPerRequest') * 1000) / 1000,
    dbCpuMsPerRequest: Math.round(mean('dbCpuMsPerRequest') * 1000) / 1000,
    machineBusy: round2(mean('machineBusy')),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
  };
}

/**
 * The tables orders write, analyzed as autovacuum would have by now. This machine type runs
 * PostgreSQL with `autovacuum = off`: without this a fresh bench database keeps the
 * statistics of empty tables, and each connection's foreign-key checks (order lines and
 * history pointing at their order) keep the sequential-scan plans made when `orders` was
 * empty, re-reading every order on every insert (docs/performance.md). Run before each
 * measured round, for the API and the baseline alike; nothing is analyzed while measuring.
 */
const WRITTEN_TABLES = [
  'orders',
  'order_lines',
  'order_status_history',
  'events',
  'idempotency_keys',
];

async function analyzeWrittenTables(db) {
  await db.query(`ANALYZE ${WRITTEN_TABLES.join(', ')}`);
}

/** No oversell: every SKU's reservations equal its pending order lines and fit its stock. */
async function checkStock(db) {
  // Orders in these statuses hold reservations (src/orders/order-status.ts); the bench
  // only creates pending ones.
  const { rows } = await db.query(`
    SELECT i.sku
    FROM inventory_items i
    LEFT JOIN (
      SELECT l.sku, sum(l.quantity) AS quantity
      FROM order_lines l JOIN orders o ON o.id = l.order_id
      WHERE o.status IN ('pending', 'confirmed')
      GROUP BY l.sku
    ) ordered ON ordered.sku = i.sku
    WHERE i.quantity_reserved > i.quantity_on_hand
       OR i.quantity_reserved <> coalesce(ordered.quantity, 0)`);
  const { rows: orders } = await db.query('SELECT count(*)::int AS n FROM orders');
  return { ok: rows.length === 0, mismatchedSkus: rows.length, orders: orders[0].n };
}

/** User + system CPU time of process `pid` so far, in milliseconds (Linux /proc). */
function cpuMs(pid) {
  return ownCpuMs(statFields(readFileSync(`/proc/${pid}/stat`, 'utf8')));
}

/** The fields of a `/proc/<pid>/stat` line after the command name: state, ppid, … */
// after the last ')': a command name may hold one
const statFields = (line) => line.slice(line.lastIndexOf(')') + 2).split(' ');
// utime and stime are fields 14 and 15 of the line, cutime and cstime (the time of the
// children it has reaped) 16 and 17: 12 to 15 after the command name
const ticksMs = (fields, from) =>
  ((Number(fields[from]) + Number(fields[from + 1])) * 1000) / CLOCK_TICKS;
const ownCpuMs = (fields) => ticksMs(fields, 11);
const reapedChildrenCpuMs = (fields) => ticksMs(fields, 13);

/** The machine's CPU time so far, all cores, in ticks: busy, and in all (/proc/stat). */
function machineTicks() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal; guest time is already in user
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.slice(0, 8).map(Number);
  const all = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: all - idle - iowait, all };
}

const busyShare = (before, after) =>
  after.all > before.all ? (after.busy - before.busy) / (after.all - before.all) : NaN;

/**
 * User + system CPU time PostgreSQL has used so far, in milliseconds: every live process
 * named `postgres` (backends, autovacuum, checkpointer, WAL writer), plus what the
 * processes that ended used (parallel query workers, autovacuum workers), which the
 * postmaster's children time holds once it has reaped them. Null when no PostgreSQL runs
 * here, as when BENCH_DATABASE_URL names another machine.
 *
 * A process reaped while /proc is read is in neither place or in both, by which was read
 * first (a round of list pages once came out at -0.29 ms a request): so the postmasters'
 * children time is read again after the others, and the whole read repeated until it did
 * not move.
 */
function postgresCpuMs() {
  for (let attempt = 1; ; attempt += 1) {
    const processes = postgresProcesses();
    if (processes.size === 0) return null;
    let total = 0;
    let unmoved = true;
    for (const [pid, { ppid, fields }] of processes) {
      total += ownCpuMs(fields);
      // the postmaster, the one whose parent is not PostgreSQL's
      if (processes.has(ppid)) continue;
      const reaped = reapedChildrenCpuMs(fields);
      total += reaped;
      unmoved &&= reaped === reapedChildrenCpuMs(statOf(pid) ?? fields);
    }
    if (unmoved || attempt === 10) return total;
  }
}

/** Every process named `postgres`: its parent and its stat fields, by pid. */
function postgresProcesses() {
  const processes = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statOf(entry);
    if (fields?.command === 'postgres') processes.set(entry, { ppid: fields[1], fields });
  }
  return processes;
}

/** The stat fields of process `pid` with its command name; null once it has ended. */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Object.assign(statFields(stat), {
      command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    });
  } catch {
    return null;
  }
}

/**
 * The API's resident memory when the load stops, and again once it has been idle for
 * BENCH_SETTLE_S seconds, with a reading every 10 s between. Under load V8 sizes its heap
 * to the allocation rate, so the first figure holds garbage not yet collected; once V8's
 * allocation history shows the process idle, its memory reducer collects it and gives the
 * pages back. With the API's larger young generation (`npm run start:prod`) few scavenges
 * happen while idle to update that history, and the reducer ran 45 to 90 s after the load.
 */
async function residentAfterRun(pid) {
  const endOfLoadMb = residentMb(pid);
  log(`API RSS at the end of the load: ${endOfLoadMb} MB; idle ${env.settleSeconds} s…`);
  const idleMb = [];
  for (let waited = 0; waited < env.settleSeconds; waited += 10) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(10, env.settleSeconds - waited) * 1000),
    );
    idleMb.push(residentMb(pid));
  }
  log(`API RSS every 10 s idle: ${idleMb.join(', ')} MB`);
  const settledMb = idleMb.at(-1) ?? endOfLoadMb;
  return { endOfLoadMb, settledMb, settledAfterS: env.settleSeconds, idleMb };
}

function residentMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

function machine() {
  const os = require('node:os');
  return {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

function print(report) {
  const rows = report.results.map((r) => ({
    scenario: r.scenario,
    conns: r.connections,
    'API req/s': r.api.rps,
    'API p50': r.api.p50,
    'API p99': r.api.p99,
    'base req/s': r.baseline.rps,
    'base p50': r.baseline.p50,
    'base p99': r.baseline.p99,
    'req/s ratio': r.ratio.rps,
    'API CPU ms/req': r.api.cpuMsPerRequest,
    'base CPU ms/req': r.baseline.cpuMsPerRequest,
    'PG CPU ms/req API': r.api.dbCpuMsPerRequest,
    'PG CPU ms/req base': r.baseline.dbCpuMsPerRequest,
    'machine busy API': r.api.machineBusy,
    'machine busy base': r.baseline.machineBusy,
    unexpected: r.api.unexpected + r.baseline.unexpected,
  }));
  console.table(rows);
  console.table(report.targets);
  log(
    `stock: ${report.stock.ok ? 'no oversell' : `${report.stock.mismatchedSkus} SKUs inconsistent`} across ${report.stock.orders} orders`,
  );
  log(
    `API RSS: ${report.apiRss.endOfLoadMb} MB at the end of the load, ` +
      `${report.apiRss.settledMb} MB after ${report.apiRss.settledAfterS} s idle`,
  );
}

const round2 = (n) => Math.round(n * 100) / 100;
/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

function run(command, args, extraEnv) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, ...extraEnv },
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${code}`)),
    );
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
