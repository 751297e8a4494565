import { Problem } from '../http/problems/problem';

/**
 * One resource's life: its statuses and the one table of allowed moves, each with what
 * the move does besides changing the status (its effect). Whatever the table does not
 * list, staying in the same status included, is `409 invalid_status_transition`. Orders,
 * invoices and shipments each declare theirs with `statusMachine`.
 */
export interface StatusMachine<S extends string, E> {
  /** The effect of moving `from` → `to`, or undefined when that move is not allowed. */
  effectOf(from: S, to: S): E | undefined;
  /** The effect of moving `from` → `to`; the 409 problem when that move is not allowed. */
  move(from: S, to: S): E;
  /** Where a resource in `from` may go next (for messages and documentation). */
  next(from: S): S[];
  /** 409: this move is not allowed; nothing was changed. */
  transitionProblem(from: S, to: S): Problem;
}

/** `subject` starts the problem's detail: "An order", "A shipment". */
export function statusMachine<S extends string, E>(
  subject: string,
  statuses: readonly S[],
  transitions: Record<S, Partial<Record<S, E>>>,
): StatusMachine<S, E> {
  const effectOf = (from: S, to: S) => transitions[from][to];
  const next = (from: S) => statuses.filter((to) => effectOf(from, to) !== undefined);
  const transitionProblem = (from: S, to: S) => {
    const onward = next(from);
    return new Problem(
      'invalid_status_transition',
      `${subject} cannot move from ${from} to ${to}; ` +
        (onward.length > 0
          ? `from ${from} it can move to ${onward.join(' or ')}.`
          : `${from} is final.`),
      [{ field: 'status', message: `cannot move from ${from} to ${to}` }],
    );
  };
  return {
    effectOf,
    next,
    transitionProblem,
    move: (from, to) => {
      const effect = effectOf(from, to);
      if (effect === undefined) throw transitionProblem(from, to);
      return effect;
    },
  };
}
