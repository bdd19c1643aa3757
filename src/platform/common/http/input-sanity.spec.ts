import { findInputProblem, MAX_INPUT_DEPTH } from './input-sanity';

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('findInputProblem (the input-sanity layer)', () => {
  it('accepts ordinary text, numbers, nulls and paired surrogates', () => {
    expect(
      findInputProblem({ email: 'ann@acme.io', n: 3, none: null, emoji: 'ok \ud83d\ude00', list: ['a'] }),
    ).toBeNull();
    expect(findInputProblem(undefined)).toBeNull();
  });

  it.each([
    ['a NUL character', { name: 'a\u0000b' }, 'name', /NUL/],
    ['a lone high surrogate', { email: 'a\ud800b@x.io' }, 'email', /unpaired surrogate/],
    ['a lone low surrogate at the start', { email: '\udc00' }, 'email', /unpaired surrogate/],
    ['a high surrogate at the end', { email: 'x\ud83d' }, 'email', /unpaired surrogate/],
    ['a NUL in a nested array', { lines: [{ product_id: 1 }, { note: '\u0000' }] }, 'lines.1.note', /NUL/],
  ])('refuses %s, naming the field', (_label, input, field, message) => {
    const problem = findInputProblem(input);
    expect(problem).toEqual({ field, message: expect.stringMatching(message) });
  });

  it('refuses a NUL or unpaired surrogate in a field name without showing the name', () => {
    const problem = findInputProblem({ tag: { 'x\u0000y': 1 } });
    expect(problem?.field).toBe('tag');
    expect(problem?.message).not.toContain('x\u0000y');
  });

  it(`accepts ${MAX_INPUT_DEPTH} levels and refuses ${MAX_INPUT_DEPTH + 1}`, () => {
    expect(findInputProblem(nested(MAX_INPUT_DEPTH))).toBeNull();
    expect(findInputProblem({ deep: nested(MAX_INPUT_DEPTH) })).toEqual({
      field: 'deep',
      message: `deep is nested deeper than ${MAX_INPUT_DEPTH} levels`,
    });
  });

  it('walks 100,000 levels without a stack overflow', () => {
    expect(findInputProblem({ email: nested(100_000) })?.field).toBe('email');
  });
});
