import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, installedProgram, startServer, until } from './programs';

export const nginxProgram = () => installedProgram('nginx');

export interface LoadBalancer {
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/**
 * deploy/nginx.conf, the compose topology's load balancer, in front of the app at
 * `apiPort`. Only what ties it to Compose is changed: Docker's DNS and its `resolve`
 * (nginx 1.27.3; Debian's is older) give way to the app's address, and it listens on a
 * free loopback port, with its files in a folder of its own. Each change must find its
 * line, so an edit of the file that this no longer matches fails loudly.
 */
export async function startLoadBalancer(apiPort: number): Promise<LoadBalancer> {
  const program = nginxProgram();
  if (!program) throw new Error('nginx is not installed');
  const port = await freePort();
  const deployed = readFileSync(join(__dirname, '..', '..', 'deploy', 'nginx.conf'), 'utf8');
  const config = (folder: string) => {
    const edits: [RegExp, string][] = [
      [/^ {2}resolver .*;$/m, ''],
      [/^ {4}server api:3000 resolve;$/m, `    server 127.0.0.1:${apiPort};`],
      [/^ {4}listen 8080;$/m, `    listen 127.0.0.1:${port};`],
      [
        /^http \{$/m,
        [
          `pid ${folder}/nginx.pid;`,
          'http {',
          '  access_log off;',
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
            (kind) => `  ${kind}_temp_path ${folder}/${kind};`,
          ),
        ].join('\n'),
      ],
    ];
    let text = deployed;
    for (const [line, replacement] of edits) {
      if (!line.test(text)) throw new Error(`deploy/nginx.conf: no line matches ${String(line)}`);
      text = text.replace(line, replacement);
    }
    return text;
  };
  const nginx = startServer(
    program,
    (folder) => ({ 'nginx.conf': config(folder) }),
    (folder) => ['-p', folder, '-c', `${folder}/nginx.conf`, '-e', 'stderr', '-g', 'daemon off;'],
    'SIGTERM',
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await until(() => fetch(`${baseUrl}/health/live`), 'nginx did not start');
  } catch (error) {
    await nginx.stop();
    throw new Error(`${String(error)}\n${nginx.log()}`, { cause: error });
  }
  return { baseUrl, stop: () => nginx.stop() };
}
