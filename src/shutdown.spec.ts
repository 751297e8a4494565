import { Logger } from '@nestjs/common';
import { onShutdownSignal } from './shutdown';

describe('onShutdownSignal', () => {
  const removers: (() => void)[] = [];
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => removers.splice(0).forEach((remove) => remove()));

  function install(close: () => Promise<void>) {
    const exit = jest.fn();
    removers.push(onShutdownSignal(close, { exit }));
    return exit;
  }

  const settled = () => new Promise((resolve) => setImmediate(resolve));

  it('closes once on SIGTERM, then exits 0', async () => {
    const close = jest.fn().mockResolvedValue(undefined);
    const exit = install(close);

    process.emit('SIGTERM', 'SIGTERM');
    await settled();

    expect(close).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('does the same on SIGINT', async () => {
    const exit = install(() => Promise.resolve());

    process.emit('SIGINT', 'SIGINT');
    await settled();

    expect(exit).toHaveBeenCalledWith(0);
  });

  it('exits 1 when closing fails', async () => {
    const exit = install(() => Promise.reject(new Error('pool would not close')));

    process.emit('SIGTERM', 'SIGTERM');
    await settled();

    expect(exit).toHaveBeenCalledWith(1);
  });

  it('leaves a second signal to Node, so it ends a shutdown that hangs', async () => {
    const close = jest.fn(() => new Promise<void>(() => {}));
    const before = ['SIGTERM', 'SIGINT'].map((signal) => process.listenerCount(signal));
    install(close);

    process.emit('SIGTERM', 'SIGTERM');
    expect(['SIGTERM', 'SIGINT'].map((signal) => process.listenerCount(signal))).toEqual(before);
    process.emit('SIGINT', 'SIGINT');
    await settled();

    expect(close).toHaveBeenCalledTimes(1);
  });
});
