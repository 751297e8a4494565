import type { Principal } from '../auth/principal';

/** One recorded status change, as the order and invoice history tables both hold it. */
export interface StatusChange<S extends string> {
  fromStatus: S | null;
  toStatus: S;
  at: Date;
  actor: string;
}

/** What the status sub-resource reads of its resource: the version is its ETag too. */
export interface HasStatus<S extends string> {
  status: S;
  version: number;
}

/** A resource as read, with its status history up to that version, oldest first. */
export interface StatusWithHistory<S extends string, R extends HasStatus<S> = HasStatus<S>> {
  current: R;
  history: StatusChange<S>[];
}

/** What a resource with a `/{id}/status` sub-resource offers it (orders, invoices). */
export interface StatusOwner<S extends string> {
  statusOf(principal: Principal, id: string): Promise<StatusWithHistory<S>>;
  changeStatus(
    principal: Principal,
    id: string,
    to: S,
    expectedVersions?: number[],
  ): Promise<StatusWithHistory<S>>;
}

/** The status sub-resource's body: the same in every API version (it holds no money). */
export interface StatusBody<S extends string> {
  status: S;
  history: { from: S | null; to: S; at: Date; actor: string }[];
}

export function toStatusBody<S extends string>({
  current,
  history,
}: StatusWithHistory<S>): StatusBody<S> {
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
