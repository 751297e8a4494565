import { connect } from 'node:net';

/** HTTP/1.1 spoken by hand, for bytes no HTTP client would send. */

/** Writes `bytes` on a fresh connection and returns everything the server sends back. */
export function rawExchange(baseUrl: string, bytes: string): Promise<string> {
  return exchange(baseUrl, bytes, () => false).then((received) => received.toString('utf8'));
}

/**
 * Writes `bytes` on a fresh connection and returns the first answer, read as soon as its
 * `Content-Length` bytes of body are in: a server may keep the connection open after
 * refusing a request (nginx reads on for a while, for a body that may never come).
 */
export async function rawAnswer(baseUrl: string, bytes: string) {
  const received = await exchange(baseUrl, bytes, (sofar) => {
    const headEnd = sofar.indexOf('\r\n\r\n');
    if (headEnd < 0) return false;
    const length = /\r\ncontent-length: *(\d+)/i.exec(sofar.subarray(0, headEnd).toString());
    return length !== null && sofar.length >= headEnd + 4 + Number(length[1]);
  });
  return parseAnswer(received.toString('utf8'));
}

/** Status, headers (lower-cased names) and JSON body of one raw HTTP/1.1 answer. */
export function parseAnswer(text: string) {
  const [head, body] = text.split('\r\n\r\n', 2);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

/** What the server sends back to `bytes`, until it closes or `enough` says so. */
function exchange(
  baseUrl: string,
  bytes: string,
  enough: (received: Buffer) => boolean,
): Promise<Buffer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!enough(received)) return;
      socket.destroy();
      resolve(received);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}
