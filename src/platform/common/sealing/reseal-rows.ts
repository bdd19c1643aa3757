/** Where a re-encryption batch goes on from: a table's key, an integer or (event streams) a uuid. */
export type SealCursor = number | string;

/** One re-encryption batch's answer (src/platform/keys/sealed-columns.ts): the last key seen, null when none is left. */
export interface ResealBatch {
  lastId: SealCursor | null;
  resealed: number;
  unreadable: number;
}

/**
 * The loop every owner of a sealed column runs on the rows its own SELECT locked: each value sealed again
 * (`reseal` null: unreadable, left as it is) and written back by the owner's `write`, which names its table and
 * checks the value is still the one read. Shared so that the owners keep only their SQL.
 */
export async function resealRows<Row>(
  rows: readonly Row[],
  row: { id: (row: Row) => SealCursor; sealed: (row: Row) => string },
  reseal: (sealed: string) => string | null,
  write: (row: Row, value: string) => Promise<unknown>,
): Promise<ResealBatch> {
  let resealed = 0;
  for (const each of rows) {
    const value = reseal(row.sealed(each));
    if (value === null) continue;
    await write(each, value);
    resealed++;
  }
  const last = rows.at(-1);
  return { lastId: last === undefined ? null : row.id(last), resealed, unreadable: rows.length - resealed };
}
