import type { Principal } from '../auth/principal';

/** One recorded status change, as the order and invoice history tables both hold it. */
export interface StatusChange<S extends string> {
  fromStatus: S | null;
  toStatus: S;
  at: Date;
  actor: string;
}

/**
 * A resource's status as read: the resource (its status, and its version, which is the
 * status sub-resource's ETag too) and its history up to that version, oldest first.
 */
export interface StatusWithHistory<S extends string, R extends { status: S; version: number }> {
  current: R;
  history: StatusChange<S>[];
}

/** What a resource with a `/{id}/status` sub-resource offers it (orders, invoices). */
export interface StatusOwner<S extends string> {
  statusOf(
    principal: Principal,
    id: string,
  ): Promise<StatusWithHistory<S, { status: S; version: number }>>;
  changeStatus(
    principal: Principal,
    id: string,
    to: S,
    expectedVersions?: number[],
  ): Promise<StatusWithHistory<S, { status: S; version: number }>>;
}

/** The status sub-resource's body: the same in every API version (it holds no money). */
export interface StatusBody<S extends string> {
  status: S;
  history: { from: S | null; to: S; at: Date; actor: string }[];
}

export function toStatusBody<S extends string>({
  current,
  history,
}: StatusWithHistory<S, { status: S; version: number }>): StatusBody<S> {
  return {
    status: current.status,
    history: history.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      at: h.at,
      actor: h.actor,
    })),
  };
}
