import type { ValueTransformer } from 'typeorm';

/**
 * Both drivers return `bigint` as a string. Money columns are bounded (price ≤ 10^9, quantity ≤ 10^4, ≤ 100 lines:
 * at most 10^15) well below 2^53, so a JSON number carries them exactly; a value beyond that is a bug, not money.
 */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => {
    if (value === null) return null;
    const number = Number(value);
    if (!Number.isSafeInteger(number)) throw new Error(`bigint ${value} is beyond the safe integer range`);
    return number;
  },
};
