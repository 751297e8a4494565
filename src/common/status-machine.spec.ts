import { Problem } from '../http/problems/problem';
import { statusMachine } from './status-machine';

const life = statusMachine<'a' | 'b' | 'c', string>('A thing', ['a', 'b', 'c'], {
  a: { b: 'start', c: 'skip' },
  b: { c: 'finish' },
  c: {},
});

describe('statusMachine', () => {
  it('gives the effect of an allowed move and lists onward statuses in declared order', () => {
    expect(life.move('a', 'c')).toBe('skip');
    expect(life.effectOf('b', 'a')).toBeUndefined();
    expect(life.next('a')).toEqual(['b', 'c']);
    expect(life.next('c')).toEqual([]);
  });

  it('refuses a move the table does not list, staying put included, with a 409 naming the way on', () => {
    const refused = (from: 'a' | 'b' | 'c', to: 'a' | 'b' | 'c') => {
      try {
        life.move(from, to);
      } catch (error) {
        return error as Problem;
      }
      throw new Error(`${from} → ${to} was allowed`);
    };

    expect(refused('b', 'b')).toMatchObject({
      code: 'invalid_status_transition',
      status: 409,
      detail: 'A thing cannot move from b to b; from b it can move to c.',
      errors: [{ field: 'status', message: 'cannot move from b to b' }],
    });
    expect(refused('c', 'a').detail).toBe('A thing cannot move from c to a; c is final.');
  });
});
