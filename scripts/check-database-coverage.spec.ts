// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check } = require('./check-database-coverage');

describe('check-database-coverage', () => {
  const records = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

  it('passes a file run once whose statements a file on both databases sends too', () => {
    const result = check(
      records({
        'products.e2e-spec.ts': ['SELECT a', 'INSERT b'],
        'errors.any-database.e2e-spec.ts': ['SELECT a'],
      }),
    );
    expect(result.problems).toEqual([]);
    expect(result.reasons).toEqual([['products.e2e-spec.ts', 2]]);
  });

  it('fails a file run once that sends a statement only it sends, naming the statement', () => {
    const result = check(
      records({
        'products.e2e-spec.ts': ['SELECT a'],
        'errors.any-database.e2e-spec.ts': ['SELECT a', 'DELETE c'],
      }),
    );
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toContain('errors.any-database.e2e-spec.ts');
    expect(result.problems[0]).toContain('DELETE c');
  });

  it('does not count a postgres-only file as coverage on both', () => {
    const result = check(
      records({
        'outage.postgres-only.e2e-spec.ts': ['SELECT a'],
        'errors.any-database.e2e-spec.ts': ['SELECT a'],
      }),
    );
    expect(result.problems).toHaveLength(1);
  });
});
