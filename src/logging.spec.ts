import pino from 'pino';
import { PinoNestLogger } from './logging';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { nest: new PinoNestLogger(logger), lines };
}

describe('PinoNestLogger', () => {
  it("writes Nest's messages as pino lines with Nest's context as a field", () => {
    const { nest, lines } = capture();

    nest.log('Mapped {/api/v2/products, GET} route', 'RouterExplorer');
    nest.warn('Redis is unavailable', 'RateLimit');

    expect(lines).toMatchObject([
      { level: 30, msg: 'Mapped {/api/v2/products, GET} route', context: 'RouterExplorer' },
      { level: 40, msg: 'Redis is unavailable', context: 'RateLimit' },
    ]);
  });

  it('keeps the stack Nest passes with an error, and serializes an Error', () => {
    const { nest, lines } = capture();

    nest.error('Delivery failed', 'Error: boom\n    at x', 'Worker');
    nest.error(new Error('lost connection'), 'Database');

    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'Delivery failed',
      stack: 'Error: boom\n    at x',
      context: 'Worker',
    });
    expect(lines[1]).toMatchObject({
      level: 50,
      msg: 'lost connection',
      context: 'Database',
      err: { type: 'Error', message: 'lost connection' },
    });
  });

  it('takes an object as the fields and the next string as the message', () => {
    const { nest, lines } = capture();

    nest.error({ requestId: 'r-1' }, 'Could not count a request', 'RateLimit');

    expect(lines[0]).toMatchObject({
      level: 50,
      requestId: 'r-1',
      msg: 'Could not count a request',
      context: 'RateLimit',
    });
  });

  it('writes nothing below the level', () => {
    const { nest, lines } = capture();

    nest.debug('verbose detail', 'Somewhere');
    nest.verbose('more detail', 'Somewhere');

    expect(lines).toHaveLength(0);
  });
});
