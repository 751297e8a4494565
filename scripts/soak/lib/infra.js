// The soak test's own infrastructure: a throwaway PostgreSQL cluster, a throwaway Redis and
// the app's processes, all on loopback ports of their own. Nothing here touches the shared
// PostgreSQL (5432) or Redis (6379) other people test against.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { log, portInUse, sleep } = require('./util');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The folder of initdb, pg_ctl and postgres: SOAK_PG_BIN, the newest Debian one, or PATH. */
function postgresBinDir() {
  if (process.env.SOAK_PG_BIN) return process.env.SOAK_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return path.join(root, versions[0], 'bin');
  }
  return '';
}

/**
 * A PostgreSQL cluster in a temporary folder, on its own port, trust authentication on
 * 127.0.0.1 only. PostgreSQL refuses to run as root, so as root every command runs as the
 * `postgres` user (runuser) and the folder belongs to it.
 */
class PostgresCluster {
  constructor({ dir, port, logFile }) {
    this.dir = dir;
    this.dataDir = path.join(dir, 'data');
    this.port = port;
    this.logFile = logFile;
    this.bin = postgresBinDir();
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  command(tool, args) {
    const command = this.bin ? path.join(this.bin, tool) : tool;
    return isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  }

  /** Runs a tool and waits, blocking (set-up and clean-up only). */
  run(tool, args, { check = true, timeoutMs = 120_000 } = {}) {
    const [file, argv] = this.command(tool, args);
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: timeoutMs });
    if (check && result.status !== 0) {
      throw new Error(
        `${tool} ${args.join(' ')} failed (${result.status ?? result.signal ?? result.error}): ${result.stderr || result.stdout}`,
      );
    }
    return result;
  }

  init() {
    fs.mkdirSync(this.dir, { recursive: true });
    if (isRoot) spawnSync('chown', ['-R', 'postgres:postgres', this.dir]);
    this.run('initdb', [
      '-D',
      this.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    // Loopback only, its own socket folder, and enough connections for 2 APIs + a worker.
    fs.appendFileSync(
      path.join(this.dataDir, 'postgresql.conf'),
      [
        '',
        '# soak test',
        `port = ${this.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.dir}'`,
        'max_connections = 100',
        "timezone = 'UTC'",
        '',
      ].join('\n'),
    );
    if (isRoot) spawnSync('chown', ['-R', 'postgres:postgres', this.dir]);
    // The log file is written by the server, as postgres.
    fs.writeFileSync(this.logFile, '');
    if (isRoot) spawnSync('chown', ['postgres:postgres', this.logFile]);
  }

  /**
   * Runs a tool without blocking the event loop (the traffic and the receiver live in this
   * process and must keep their timing while the server stops and starts).
   */
  exec(tool, args) {
    const [file, argv] = this.command(tool, args);
    return new Promise((resolve, reject) => {
      const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.once('error', reject);
      // 'close', not 'exit': the output is complete only once the pipes are closed
      child.once('close', (code) => {
        if (code === 0) resolve(output);
        else reject(new Error(`${tool} ${args.join(' ')} failed (${code}): ${output}`));
      });
    });
  }

  /** Starts the server and waits until it accepts connections. */
  start() {
    return this.exec('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-w', '-t', '60', 'start']);
  }

  /** A fast shutdown (rolls back open transactions, disconnects sessions); waits for it. */
  stop(mode = 'fast') {
    return this.exec('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  /** Stops the server whatever its state (used on exit, also after Ctrl-C). */
  destroy() {
    if (fs.existsSync(path.join(this.dataDir, 'postmaster.pid'))) {
      this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop'], { check: false });
    }
  }
}

/** redis-server on its own port: no persistence, a child of this process. */
class RedisServer {
  constructor({ port, dir, logFile }) {
    this.port = port;
    this.dir = dir;
    this.logFile = logFile;
    this.url = `redis://127.0.0.1:${port}`;
    this.child = undefined;
  }

  async start() {
    const out = fs.openSync(this.logFile, 'a');
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
      ],
      // its own process group: Ctrl-C reaches the runner only, which stops it
      { stdio: ['ignore', out, out], detached: true },
    );
    fs.closeSync(out);
    const child = this.child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    for (let i = 0; i < 100; i++) {
      if (await portInUse(this.port)) return;
      if (!this.child) throw new Error(`redis-server exited at start; see ${this.logFile}`);
      await sleep(100);
    }
    throw new Error('redis-server did not start within 10 s');
  }

  async stop() {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  destroy() {
    if (this.child) this.child.kill('SIGKILL');
  }
}

/**
 * One of the app's processes (`node dist/main.js` or `node dist/src/worker.js`). Its output
 * goes to a log file; an exit that `stop()` did not ask for is recorded as a crash.
 */
class AppProcess {
  constructor({ name, script, env, logFile, cwd }) {
    this.name = name;
    this.script = script;
    this.env = env;
    this.logFile = logFile;
    this.cwd = cwd;
    this.child = undefined;
    this.stopping = false;
    this.unexpectedExits = [];
  }

  start() {
    const out = fs.openSync(this.logFile, 'a');
    this.child = spawn(process.execPath, [this.script], {
      cwd: this.cwd,
      env: this.env,
      stdio: ['ignore', out, out],
      // its own process group: Ctrl-C reaches the runner only, which stops it gracefully
      detached: true,
    });
    fs.closeSync(out);
    const child = this.child;
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (!this.stopping) {
        this.unexpectedExits.push({ code, signal, at: new Date().toISOString() });
        log(`!! ${this.name} exited unexpectedly (code ${code}, signal ${signal})`);
      }
    });
  }

  get running() {
    return this.child !== undefined;
  }

  get pid() {
    return this.child?.pid;
  }

  /** SIGTERM (a graceful shutdown), SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 20_000) {
    this.stopping = true;
    const child = this.child;
    if (!child) return null;
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  destroy() {
    this.stopping = true;
    if (this.child) this.child.kill('SIGKILL');
  }
}

/** Waits until `url` answers `expect` (a status), or throws after `timeoutMs`. */
async function waitForHttp(url, { expect = 200, timeoutMs = 60_000, process: proc } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && !proc.running) throw new Error(`${proc.name} exited; see ${proc.logFile}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === expect) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer ${expect} within ${timeoutMs} ms`);
}

/** A self-signed certificate for 127.0.0.1 (openssl), or undefined when openssl is missing. */
function selfSignedCertificate(dir) {
  const keyFile = path.join(dir, 'receiver-key.pem');
  const certFile = path.join(dir, 'receiver-cert.pem');
  const result = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) return undefined;
  return { keyFile, certFile };
}

module.exports = {
  PostgresCluster,
  RedisServer,
  AppProcess,
  waitForHttp,
  selfSignedCertificate,
  isRoot,
};
