// The soak test (`npm run soak`, docs/operations.md "Soak test"): mixed traffic against the
// BUILT app (`npm run build` first) for SOAK_SECONDS (default 600) while faults are
// injected, then a check that everything the API acknowledged is there and every event
// reached its webhook receiver.
//
//   two API processes (node dist/main.js, WORKER=off) + one webhook worker
//   (node dist/src/worker.js), on a PostgreSQL cluster and a Redis of the soak's own
//   (temporary folder, loopback ports: the shared 5432 and 6379 are never touched)
//
//   faults, at fractions of the run:  25 %  PostgreSQL stopped (fast) for ~10 s, started
//                                      45 %  Redis stopped for ~30 s, started
//                                      60 %  the webhook receiver answers 500/503 for 12 %
//   rate-limit bursts at 8 %, during the Redis outage, and at 85 %
//
// Exit code 0 when every check passed, 1 when one failed, 2 when the soak could not run.
// Results (JSON summary and the processes' logs): scripts/soak/results/<time>/.
//
// Environment: SOAK_SECONDS (600), SOAK_PG_DOWN_S (10), SOAK_REDIS_DOWN_S (30),
// SOAK_MAX_503_MS (2000), SOAK_DRAIN_S (300), SOAK_PG_PORT (55432), SOAK_REDIS_PORT (56379),
// SOAK_PG_BIN (the folder of initdb/pg_ctl), SOAK_KEEP_TMP=1 keeps the database folder.
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  AppProcess,
  PostgresCluster,
  RedisServer,
  isRoot,
  selfSignedCertificate,
  waitForHttp,
} = require('./lib/infra');
const { Api, Recorder } = require('./lib/client');
const { WebhookReceiver } = require('./lib/receiver');
const { World, startTraffic, throttleBurst } = require('./lib/traffic');
const {
  check,
  countBy,
  isApi,
  isThrottle,
  judgePostgresWindow,
  judgeRedisWindow,
  outstandingDeliveries,
  verifyDatabase,
} = require('./lib/verify');
const { elapsed, freePort, latencySummary, log, sleep } = require('./lib/util');

const ROOT = path.join(__dirname, '..', '..');

function numberFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`soak: ${name} must be a positive number, got ${raw}`);
    process.exit(2);
  }
  return value;
}

const DURATION_S = numberFromEnv('SOAK_SECONDS', 600);
const PG_DOWN_S = numberFromEnv('SOAK_PG_DOWN_S', Math.min(10, Math.round(DURATION_S * 0.1)));
const REDIS_DOWN_S = numberFromEnv(
  'SOAK_REDIS_DOWN_S',
  // long enough for the rate-limit burst made while it is down (~10 s on 2 busy cores)
  Math.min(30, Math.max(15, Math.round(DURATION_S * 0.1))),
);
const FAILING_S = Math.max(15, Math.round(DURATION_S * 0.12));
const MAX_503_MS = numberFromEnv('SOAK_MAX_503_MS', 2000);
const DRAIN_S = numberFromEnv('SOAK_DRAIN_S', 300);
// A budget per key that the paced loops stay under (12 req/s x 30 s = 360 < 400), so only
// the bursts are throttled; a burst's 2 x 400 + 100 requests fit in one window.
const RATE_LIMIT = 400;
const RATE_WINDOW_S = 30;
const LOOP_MAX_RPS = 12;
const BOOTSTRAP_KEY = `soak-admin-${randomBytes(12).toString('hex')}`;

/**
 * Retry waits that outlast the receiver's failing window with room to spare, so no delivery
 * runs out of retries (the default schedule waits up to 10 h: far longer than the soak).
 */
function retrySchedule() {
  if (process.env.SOAK_WEBHOOK_RETRY_SCHEDULE) return process.env.SOAK_WEBHOOK_RETRY_SCHEDULE;
  const schedule = [1, 2, 4, 8, 15];
  while (schedule.reduce((a, b) => a + b, 0) < FAILING_S * 1.5 + PG_DOWN_S + 90) schedule.push(30);
  return schedule.join(',');
}

async function main() {
  for (const file of ['dist/main.js', 'dist/src/worker.js', 'dist/src/database/migrate.js']) {
    if (!fs.existsSync(path.join(ROOT, file))) {
      console.error(`soak: ${file} is missing; run \`npm run build\` first.`);
      process.exit(2);
    }
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(__dirname, 'results', stamp);
  fs.mkdirSync(resultsDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'commerce-soak-'));
  // the postgres user must reach its cluster folder inside
  if (isRoot) fs.chmodSync(tmp, 0o711);

  const ports = {
    postgres: await freePort(numberFromEnv('SOAK_PG_PORT', 55432)),
    redis: await freePort(numberFromEnv('SOAK_REDIS_PORT', 56379)),
  };
  ports.api1 = await freePort(53001);
  ports.api2 = await freePort(ports.api1 === 53001 ? 53002 : 0);

  const pg = new PostgresCluster({
    dir: path.join(tmp, 'pg'),
    port: ports.postgres,
    logFile: path.join(resultsDir, 'postgres.log'),
  });
  const redis = new RedisServer({
    port: ports.redis,
    dir: tmp,
    logFile: path.join(resultsDir, 'redis.log'),
  });
  const apps = [];
  let receiver;

  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    for (const app of apps) app.destroy();
    redis.destroy();
    try {
      pg.destroy();
    } catch (error) {
      console.error(`soak: could not stop PostgreSQL: ${error.message}`);
    }
    if (!process.env.SOAK_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
  };
  process.on('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: stopping everything the soak started`);
      cleanUp();
      process.exit(130);
    });
  }

  log(`soak: ${DURATION_S} s; results in ${path.relative(ROOT, resultsDir)}`);
  log(
    `PostgreSQL ${pg.bin || '(PATH)'} on ${ports.postgres}, Redis on ${ports.redis}, APIs on ${ports.api1} and ${ports.api2}`,
  );
  pg.init();
  await pg.start();
  await redis.start();

  const tls = selfSignedCertificate(tmp);
  // Production refuses http webhook URLs: the receiver speaks https with a certificate the
  // worker is told to trust. Without openssl the soak falls back to http and development.
  const nodeEnv = tls ? 'production' : 'development';
  if (!tls) {
    log('openssl not found: the receiver speaks http and the app runs with NODE_ENV=development');
  }
  receiver = new WebhookReceiver({ tls });
  await receiver.start();

  const schedule = retrySchedule();
  const env = {
    ...process.env,
    NODE_ENV: nodeEnv,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    LOG_LEVEL: 'warn',
    WORKER: 'off',
    MIGRATIONS_RUN: 'false',
    BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    RATE_LIMIT_PER_HOUR: String(RATE_LIMIT),
    RATE_LIMIT_WINDOW_S: String(RATE_WINDOW_S),
    WEBHOOK_RETRY_SCHEDULE: schedule,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...(tls ? { NODE_EXTRA_CA_CERTS: tls.certFile } : {}),
  };
  delete env.PUBLIC_URL;

  // Migrations once, as docker-compose's `migrate` service does; the APIs never race on them.
  log('applying migrations (node dist/src/database/migrate.js)');
  const migrate = new AppProcess({
    name: 'migrate',
    script: 'dist/src/database/migrate.js',
    env,
    logFile: path.join(resultsDir, 'migrate.log'),
    cwd: ROOT,
  });
  migrate.stopping = true;
  migrate.start();
  const migrateCode = await new Promise((resolve) => migrate.child.once('exit', resolve));
  if (migrateCode !== 0) throw new Error(`migrations failed; see ${migrate.logFile}`);

  const bases = [`http://127.0.0.1:${ports.api1}`, `http://127.0.0.1:${ports.api2}`];
  for (const [i, port] of [ports.api1, ports.api2].entries()) {
    const api = new AppProcess({
      name: `api-${i + 1}`,
      script: 'dist/main.js',
      env: { ...env, PORT: String(port) },
      logFile: path.join(resultsDir, `api-${i + 1}.log`),
      cwd: ROOT,
    });
    apps.push(api);
    api.start();
    // one after the other: both ensure the bootstrap key at boot
    await waitForHttp(`${bases[i]}/health/ready`, { process: api, timeoutMs: 90_000 });
  }
  const worker = new AppProcess({
    name: 'worker',
    script: 'dist/src/worker.js',
    env,
    logFile: path.join(resultsDir, 'worker.log'),
    cwd: ROOT,
  });
  apps.push(worker);
  worker.start();
  log('2 API instances and 1 worker are up');

  // --- set-up through the API, as an operator would
  const recorder = new Recorder();
  const admin = new Api({ bases, key: BOOTSTRAP_KEY, recorder, loop: 'setup' });
  const newKey = async (name, role) => {
    const r = await admin.request('POST', '/api/v1/api-keys', { body: { name, role } });
    if (r.status !== 201) throw new Error(`api key ${name}: ${r.status} ${r.text}`);
    return r.body.key;
  };
  const keys = {
    catalog: await newKey('soak catalog', 'operations'),
    orders1: await newKey('soak orders 1', 'operations'),
    orders2: await newKey('soak orders 2', 'operations'),
    fulfilment: await newKey('soak fulfilment', 'operations'),
    // events are an admin resource (API.md §2)
    reader: await newKey('soak reader', 'admin'),
    probe: await newKey('soak probe', 'analyst'),
  };
  const burstKeys = {
    normal: await newKey('soak burst (Redis up)', 'analyst'),
    redisDown: await newKey('soak burst (Redis down)', 'analyst'),
    after: await newKey('soak burst (Redis back)', 'analyst'),
  };
  const endpoint = await admin.request('POST', '/api/v1/webhook-endpoints', {
    body: { url: receiver.url(), events: ['*'], description: 'soak receiver' },
  });
  if (endpoint.status !== 201) {
    throw new Error(`webhook endpoint: ${endpoint.status} ${endpoint.text}`);
  }
  receiver.secret = endpoint.body.secret;
  const endpointId = endpoint.body.id;
  log(`webhook endpoint ${endpointId} -> ${receiver.url()}; retry schedule ${schedule}`);

  // --- traffic and faults
  const world = new World(randomBytes(3).toString('hex'));
  const t0 = elapsed();
  const at = (fraction) => t0 + fraction * DURATION_S * 1000;
  const until = async (ms) => {
    const wait = ms - elapsed();
    if (wait > 0) await sleep(wait);
  };
  const stopTraffic = startTraffic({ world, bases, keys, recorder, maxRps: LOOP_MAX_RPS });
  const progress = setInterval(() => {
    log(
      `progress: ${recorder.entries.length} requests, ${world.counts.ordersCreated} orders, ${world.counts.invoicesCreated} invoices, ${world.counts.shipmentsCreated} shipments, ${receiver.deliveredIds().size} events delivered`,
    );
  }, 30_000);

  const faults = { bursts: {} };
  const burst = (label, key) =>
    throttleBurst({ bases, key, recorder, n: 2 * RATE_LIMIT + 100, label });

  await until(at(0.08));
  log('rate-limit burst with Redis up');
  faults.bursts.normal = await burst('redis-up', burstKeys.normal);

  await until(at(0.25));
  const pgWindow = { stopIssued: elapsed() };
  log('PostgreSQL: fast shutdown');
  await pg.stop('fast');
  pgWindow.stopped = elapsed();
  log(
    `PostgreSQL is down (stop took ${Math.round(pgWindow.stopped - pgWindow.stopIssued)} ms); starting it again in ${PG_DOWN_S} s`,
  );
  await sleep(PG_DOWN_S * 1000);
  pgWindow.startIssued = elapsed();
  await pg.start();
  pgWindow.started = elapsed();
  log(
    `PostgreSQL is up again (start took ${Math.round(pgWindow.started - pgWindow.startIssued)} ms)`,
  );
  faults.postgres = pgWindow;

  await until(at(0.45));
  const redisWindow = { stopIssued: elapsed() };
  await redis.stop();
  redisWindow.stopped = elapsed();
  log(`Redis stopped for ${REDIS_DOWN_S} s`);
  const downBurst = (async () => {
    await sleep(2000);
    log('rate-limit burst with Redis down');
    const result = await burst('redis-down', burstKeys.redisDown);
    result.endedAt = elapsed();
    return result;
  })();
  await sleep(REDIS_DOWN_S * 1000);
  redisWindow.startIssued = elapsed();
  await redis.start();
  redisWindow.started = elapsed();
  log('Redis is up again');
  faults.redis = redisWindow;
  faults.bursts.redisDown = await downBurst;
  faults.bursts.redisDown.finishedWhileRedisDown =
    faults.bursts.redisDown.endedAt <= redisWindow.startIssued;

  await until(at(0.6));
  receiver.failing = true;
  const failing = { from: elapsed() };
  log(`webhook receiver failing (500/503) for ${FAILING_S} s`);
  await sleep(FAILING_S * 1000);
  receiver.failing = false;
  failing.to = elapsed();
  faults.receiverFailing = failing;
  log('webhook receiver answers 204 again');

  await until(at(0.85));
  log('rate-limit burst with Redis back');
  // Redis has to be reachable again for this one: wait for readiness to say so
  faults.bursts.redisBack = await burst('redis-back', burstKeys.after);

  await until(at(1));
  log('stopping traffic');
  await stopTraffic();
  clearInterval(progress);
  const trafficEnded = elapsed();

  // --- drain: the outbox and every delivery, bounded
  log(`waiting for the outbox and the deliveries to drain (at most ${DRAIN_S} s)`);
  const drainStarted = elapsed();
  let outstanding;
  for (;;) {
    outstanding = await outstandingDeliveries(pg.url, endpointId);
    const delivered = receiver.deliveredIds().size;
    if (
      outstanding.unfanned === 0 &&
      outstanding.outstanding === 0 &&
      delivered >= outstanding.events
    ) {
      break;
    }
    if (elapsed() - drainStarted > DRAIN_S * 1000) {
      log(`drain timed out: ${JSON.stringify(outstanding)}, ${delivered} delivered`);
      break;
    }
    await sleep(2000);
  }
  const drainSeconds = Math.round((elapsed() - drainStarted) / 100) / 10;
  log(`drained in ${drainSeconds} s`);

  // --- verdict
  const processes = apps.map((app) => ({
    name: app.name,
    runningAtEnd: app.running,
    unexpectedExits: app.unexpectedExits,
  }));
  const checks = [];
  checks.push(
    check(
      'no API or worker process exited during the run',
      processes.every((p) => p.runningAtEnd && p.unexpectedExits.length === 0),
      { processes },
    ),
  );
  checks.push(...(await verifyDatabase(pg.url, world, receiver, endpointId)));

  const entries = recorder.entries;
  const pgJudgement = judgePostgresWindow(entries, pgWindow, MAX_503_MS);
  checks.push(
    check(
      `while PostgreSQL was down every /api answer was a 503 problem with Retry-After, within ${MAX_503_MS} ms`,
      pgJudgement.ok,
      pgJudgement,
    ),
  );
  const redisJudgement = judgeRedisWindow(entries, world.health, redisWindow);
  checks.push(
    check(
      'while Redis was down requests were served and readiness said degraded (200)',
      redisJudgement.ok,
      redisJudgement,
    ),
  );

  const { normal, redisDown, redisBack } = faults.bursts;
  const limitedRight = (b) =>
    b.limited === b.limitedWithRetryAfter && b.limited === b.limitedAsProblem && b.other === 0;
  checks.push(
    check(
      'rate limits: one shared budget with Redis, per-instance budgets without it',
      normal.served === RATE_LIMIT &&
        redisBack.served === RATE_LIMIT &&
        redisDown.served > RATE_LIMIT &&
        redisDown.served <= 2 * RATE_LIMIT &&
        redisDown.finishedWhileRedisDown &&
        [normal, redisDown, redisBack].every(limitedRight),
      {
        limit: RATE_LIMIT,
        windowSeconds: RATE_WINDOW_S,
        bursts: faults.bursts,
      },
    ),
  );

  const fiveHundreds = entries.filter((e) => e.status === 500);
  const networkErrors = entries.filter((e) => e.status === 0);
  const strayThrottles = entries.filter((e) => e.status === 429 && !isThrottle(e));
  checks.push(
    check(
      'no 500 answer, no network error or time-out, no 429 outside the bursts',
      fiveHundreds.length === 0 && networkErrors.length === 0 && strayThrottles.length === 0,
      {
        internalErrors: fiveHundreds.length,
        internalErrorsByRoute: countBy(fiveHundreds, (e) => e.route),
        internalErrorSamples: fiveHundreds.slice(0, 5),
        networkErrors: networkErrors.length,
        networkErrorSamples: networkErrors.slice(0, 5),
        unexpected429: strayThrottles.length,
      },
    ),
  );
  checks.push(
    check(
      'every answer was one the client expected, and every create and transition was resolved',
      world.unexpected.length === 0 && world.unresolved.length === 0,
      {
        unexpected: world.unexpected.length,
        unexpectedSamples: world.unexpected.slice(0, 10),
        unresolved: world.unresolved.length,
        unresolvedSamples: world.unresolved.slice(0, 10),
      },
    ),
  );

  // --- stop the processes gracefully; their exit codes count too
  const exitCodes = {};
  for (const app of apps) exitCodes[app.name] = await app.stop();
  checks.push(
    check(
      'every process shut down cleanly on SIGTERM (exit code 0)',
      Object.values(exitCodes).every((c) => c === 0),
      { exitCodes },
    ),
  );
  await receiver.close();
  const logs = Object.fromEntries(apps.map((app) => [app.name, logSummary(app.logFile)]));

  const apiEntries = entries.filter((e) => isApi(e) && !isThrottle(e));
  const result = {
    startedAt: new Date(Date.now() - elapsed()).toISOString(),
    finishedAt: new Date().toISOString(),
    ok: checks.every((c) => c.ok),
    settings: {
      durationSeconds: DURATION_S,
      postgresDownSeconds: PG_DOWN_S,
      redisDownSeconds: REDIS_DOWN_S,
      receiverFailingSeconds: FAILING_S,
      max503LatencyMs: MAX_503_MS,
      nodeEnv,
      receiver: receiver.url(),
      webhookRetrySchedule: schedule,
      rateLimit: `${RATE_LIMIT} per ${RATE_WINDOW_S} s per key`,
      loopMaxRequestsPerSecond: LOOP_MAX_RPS,
      node: process.version,
      cpus: os.cpus().length,
    },
    faults: {
      postgres: pgJudgement.window,
      redis: redisJudgement.window,
      receiverFailing: { fromS: round1(failing.from / 1000), toS: round1(failing.to / 1000) },
    },
    totals: {
      requests: entries.length,
      trafficSeconds: round1((trafficEnded - t0) / 1000),
      requestsPerSecond: round1(entries.length / ((trafficEnded - t0) / 1000)),
      byStatus: countBy(entries, (e) => e.status),
      apiLatencyMs: latencySummary(apiEntries.map((e) => e.ms)),
      ...world.counts,
      drainSeconds,
    },
    observations: observations(world, entries),
    retriedCreates: {
      count: world.retriedCreates.length,
      // a committed claim whose answer could not be stored while the database was down
      // answers retries 409 idempotency_key_in_use until the background write gets through
      idempotencyKeyInUseAnswers: entries.filter((e) => e.code === 'idempotency_key_in_use').length,
      untilFinalAnswerMs: latencySummary(world.retriedCreates.map((c) => c.ms)),
      slowest: [...world.retriedCreates].sort((a, b) => b.ms - a.ms).slice(0, 10),
    },
    routes: routeSummary(apiEntries),
    checks,
    logs,
  };
  const file = path.join(resultsDir, 'result.json');
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  printSummary(result, file);
  cleanUp();
  return result.ok ? 0 : 1;
}

/** Findings that are not invariants: the run passes with them, the report names them. */
function observations(world, entries) {
  const notes = [];
  const inUse = entries.filter((e) => e.code === 'idempotency_key_in_use');
  const stuck = world.retriedCreates.filter((c) => c.ms > 60_000);
  if (stuck.length) {
    notes.push(
      `${stuck.length} create(s) waited up to ${Math.round(Math.max(...stuck.map((c) => c.ms)) / 1000)} s for their final answer, ` +
        `answered 409 idempotency_key_in_use ${inUse.length} times meanwhile: their first attempt committed, but its answer ` +
        'could not be stored while PostgreSQL was down, and the interceptor writes it again in the background for up to 2 minutes',
    );
  }
  const duplicates = world.counts;
  if (duplicates.transitionsObservedAfterAmbiguousAnswer) {
    notes.push(
      `${duplicates.transitionsObservedAfterAmbiguousAnswer} status change(s) got an ambiguous answer (5xx or none) but had been made, as a read showed`,
    );
  }
  return notes;
}

function round1(v) {
  return Math.round(v * 10) / 10;
}

function routeSummary(entries) {
  const byRoute = new Map();
  for (const e of entries) {
    if (!byRoute.has(e.route)) byRoute.set(e.route, []);
    byRoute.get(e.route).push(e);
  }
  return Object.fromEntries(
    [...byRoute]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([route, list]) => [
        route,
        {
          statuses: countBy(list, (e) => e.status),
          latencyMs: latencySummary(list.map((e) => e.ms)),
        },
      ]),
  );
}

/** Error and warning lines of a process's log (JSON lines in production), with samples. */
function logSummary(file) {
  const levels = { error: 0, warn: 0, fatal: 0, other: 0 };
  const samples = new Map();
  if (!fs.existsSync(file)) return { file, missing: true };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let level = 'other';
    let message = line;
    try {
      const json = JSON.parse(line);
      level =
        typeof json.level === 'number'
          ? ({ 60: 'fatal', 50: 'error', 40: 'warn' }[json.level] ?? 'other')
          : String(json.level);
      message =
        typeof json.message === 'string'
          ? json.message
          : (json.msg ?? JSON.stringify(json.message ?? json.err ?? ''));
      if (json.context) message = `${json.context}: ${message}`;
    } catch {
      // not JSON: e.g. a library's own warning
    }
    if (!(level in levels)) level = 'other';
    levels[level] += 1;
    if (level === 'error' || level === 'fatal') {
      const key = message
        .replace(/[0-9a-f-]{36}/g, ':id')
        .replace(/\d+/g, 'N')
        .slice(0, 200);
      samples.set(key, (samples.get(key) ?? 0) + 1);
    }
  }
  return {
    file: path.relative(ROOT, file),
    lines: levels,
    errorMessages: Object.fromEntries([...samples].sort((a, b) => b[1] - a[1]).slice(0, 10)),
  };
}

function printSummary(result, file) {
  const t = result.totals;
  const line = (s) => process.stdout.write(`${s}\n`);
  line('');
  line(
    `Soak test: ${result.ok ? 'PASSED' : 'FAILED'} (${result.settings.durationSeconds} s of traffic)`,
  );
  line(
    `  ${t.requests} requests (${t.requestsPerSecond}/s), API latency p50 ${t.apiLatencyMs.p50} ms, p99 ${t.apiLatencyMs.p99} ms, max ${t.apiLatencyMs.max} ms`,
  );
  line(
    `  ${t.productsCreated} products, ${t.adjustmentsApplied} stock adjustments, ${t.ordersCreated} orders (${t.ordersRefusedInsufficientStock} refused for stock), ${t.invoicesCreated} invoices, ${t.shipmentsCreated} shipments, ${t.transitions} status changes`,
  );
  const retried = result.retriedCreates;
  line(
    `  creates retried with their Idempotency-Key: ${t.createsRetried} (${t.createsReplayed} answered by a replay, ${retried.idempotencyKeyInUseAnswers} answers 409 idempotency_key_in_use, slowest ${retried.untilFinalAnswerMs.max ?? 0} ms until its final answer); drain ${t.drainSeconds} s`,
  );
  for (const note of result.observations) line(`  note: ${note}`);
  for (const c of result.checks) {
    line(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}`);
  }
  const pgCheck = result.checks.find(
    (c) => c.window && 'downSeconds' in c.window && 'maxLatencyMs' in c,
  );
  if (pgCheck) {
    line(
      `  PostgreSQL down ${pgCheck.window.downSeconds} s: ${pgCheck.apiRequestsWhileDown} /api answers ${JSON.stringify(pgCheck.answersWhileDown)}, max latency ${pgCheck.maxLatencyMs} ms`,
    );
  }
  line(`  details: ${path.relative(ROOT, file)}`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`soak: could not run: ${error?.stack ?? error}`);
    process.exit(2);
  },
);
