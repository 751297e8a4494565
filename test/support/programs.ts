import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Servers from Debian's packages that some tests put in front of the app (PgBouncer,
 * nginx): found where Debian installs them, run from a folder of their own.
 */

/** Where program `name` is (Debian puts servers in /usr/sbin); undefined if nowhere. */
export function installedProgram(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const folder of folders.filter(Boolean)) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A loopback port nothing listens on at the moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  /** the folder its files are written to */
  readonly folder: string;
  /** what it has written to stderr so far */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Runs `program` with the arguments `args` gives for its folder, after the files `files`
 * gives for it were written there. A root test run starts it as an unprivileged user, who owns the folder
 * (PgBouncer refuses root). `stopSignal` is its quick shutdown.
 */
export function startServer(
  program: string,
  files: (folder: string) => Record<string, string>,
  args: (folder: string) => string[],
  stopSignal: NodeJS.Signals,
): ServerProcess {
  const folder = mkdtempSync(join(tmpdir(), 'coa-server-'));
  chmodSync(folder, 0o755);
  for (const [name, text] of Object.entries(files(folder))) {
    writeFileSync(join(folder, name), text, { mode: 0o644 });
  }
  const runAs = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  if (runAs) chownSync(folder, runAs.uid, runAs.gid);
  const child = spawn(program, args(folder), { stdio: ['ignore', 'ignore', 'pipe'], ...runAs });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return {
    folder,
    log: () => log,
    async stop() {
      await stopProcess(child, stopSignal);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function unprivilegedUser(): { uid: number; gid: number } {
  const entries = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'));
  const entry =
    entries.find((fields) => fields[0] === 'postgres') ??
    entries.find((fields) => fields[0] === 'nobody');
  if (!entry) throw new Error('no unprivileged user to run a server as');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Tries `attempt` every 100 ms until it resolves, for up to 5 s. */
export async function until(attempt: () => Promise<unknown>, what: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (tries >= 50) throw new Error(`${what}: ${String(error)}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
