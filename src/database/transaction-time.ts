/**
 * The time of the writing transaction by the database's clock (`now()`), as a value to
 * write: TypeORM writes a function value as the SQL it returns. `updatedAt`, the status
 * histories and the events of the same transaction get that time too, so times written
 * with it agree with them to the millisecond, and no round trip reads the clock first.
 */
export const TRANSACTION_TIME = (() => 'now()') as unknown as Date;
