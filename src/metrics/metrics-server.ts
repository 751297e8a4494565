import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metrics } from './metrics';

/**
 * `GET /metrics` for a process that has no HTTP API: `npm run worker` with
 * WORKER_METRICS_PORT. The same registry the API serves on its own port, so webhook
 * outcomes, the pool and the process are scraped from workers too. node:http rather
 * than a framework: one route, no body, nothing else to share with the API.
 */
export async function serveMetrics(metrics: Metrics, port: number, host = '0.0.0.0') {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
}
