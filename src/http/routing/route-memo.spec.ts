import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { memoByRoute } from './route-memo';

function handler(this: void): void {}
class First {}
class Second {}

const contextOf = (controller: object) =>
  new ExecutionContextHost([], controller as never, handler);

describe('memoByRoute', () => {
  it('reads a route once, and a handler shared by two controllers once for each', () => {
    const reads: string[] = [];
    const nameOf = memoByRoute((_handler, controller) => {
      reads.push(controller.name);
      return `${controller.name}.${_handler.name}`;
    });

    const answers = [First, First, Second, First, Second].map((c) => nameOf(contextOf(c)));

    expect(answers).toEqual([
      'First.handler',
      'First.handler',
      'Second.handler',
      'First.handler',
      'Second.handler',
    ]);
    expect(reads).toEqual(['First', 'Second']);
  });
});
