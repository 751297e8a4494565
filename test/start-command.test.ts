import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** The command of an npm script, split on spaces as a shell would split it. */
function npmScript(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return manifest.scripts[name].split(' ');
}

/** The image's command: the JSON array of the Dockerfile's (last) CMD. */
function imageCommand(): string[] {
  const commands = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('CMD '));
  return JSON.parse(commands.at(-1)!.slice('CMD '.length)) as string[];
}

/**
 * The API's V8 flags are written twice, in `npm run start:prod` (which `npm start` and the
 * benchmark run) and in the image's command, which runs node without npm so that SIGTERM
 * reaches the process itself. Their figures are in docs/operations.md, Performance.
 */
describe('the start command', () => {
  it('is the same in npm run start:prod and in the image', () => {
    expect(imageCommand()).toEqual(npmScript('start:prod'));
  });

  it('runs the built entry point with the V8 flags the benchmark measured', () => {
    expect(npmScript('start:prod')).toEqual([
      'node',
      '--max-semi-space-size=32',
      '--no-allocation-site-pretenuring',
      'dist/main.js',
    ]);
    expect(npmScript('start')).toEqual(['npm', 'run', 'start:prod']);
  });
});
