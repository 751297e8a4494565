import { Logger } from '@nestjs/common';
import { repeatInBackground } from './repeat-in-background';

describe('repeatInBackground', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval, logs a failure and goes on, and stops when told', async () => {
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const failure = new Error('database away');
    const run = jest
      .fn<Promise<unknown>, []>()
      .mockRejectedValueOnce(failure)
      .mockResolvedValue(undefined);
    const stop = repeatInBackground(1000, 'purging things', logger, run);

    await jest.advanceTimersByTimeAsync(999);
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(warn).toHaveBeenCalledWith({ err: failure }, 'purging things failed');
    await jest.advanceTimersByTimeAsync(2000);
    expect(run).toHaveBeenCalledTimes(3);

    stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(run).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('keeps no process alive', () => {
    const scheduled = jest.spyOn(global, 'setInterval');
    const stop = repeatInBackground(1000, 'x', new Logger('test'), () => Promise.resolve());
    const timer = scheduled.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    stop();
  });
});
