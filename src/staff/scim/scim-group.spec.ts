import { parseGroupPatch, parseGroupResource } from './scim-group';
import { PATCH_OP_SCHEMA } from './scim-patch';

const patch = (...Operations: unknown[]) => parseGroupPatch({ schemas: [PATCH_OP_SCHEMA], Operations });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { rawBody?: { scimType?: string } }).rawBody?.scimType ?? 'none';
  }
  throw new Error('not refused');
};

describe('SCIM Group PATCH (Okta and Entra shapes)', () => {
  it('reads Entra\'s "Add" and "Remove" in any case, the path filter, and keeps their order', () => {
    expect(
      patch(
        { op: 'Add', path: 'members', value: [{ value: '3' }, { value: '4' }] },
        { op: 'Remove', path: 'members[value eq "3"]' },
        { op: 'REMOVE', path: 'members', value: [{ value: '5' }] },
      ),
    ).toEqual({ add: [4], remove: [3, 5] });
    expect(
      patch({ op: 'remove', path: 'members[value eq "3"]' }, { op: 'add', path: 'members', value: { value: '3' } }),
    ).toEqual({
      add: [3],
      remove: [],
    });
  });

  it('replace of members sets the whole list, later adds and removes apply to it', () => {
    expect(
      patch(
        { op: 'replace', path: 'members', value: [{ value: '1' }, { value: '2' }] },
        { op: 'add', path: 'members', value: [{ value: '7' }] },
        { op: 'remove', path: 'members[value eq "1"]' },
      ),
    ).toEqual({ members: [2, 7], add: [], remove: [] });
    expect(patch({ op: 'remove', path: 'members' })).toEqual({ members: [], add: [], remove: [] });
  });

  it("renames with a path or with Okta's value object, ignoring attributes it does not keep", () => {
    expect(patch({ op: 'Replace', path: 'displayName', value: ' Ops ' })).toEqual({
      displayName: 'Ops',
      add: [],
      remove: [],
    });
    expect(patch({ op: 'replace', value: { id: '9', displayName: 'Ops', externalId: 'x' } })).toEqual({
      displayName: 'Ops',
      add: [],
      remove: [],
    });
    expect(patch({ op: 'add', path: 'externalId', value: 'x' })).toEqual({ add: [], remove: [] });
  });

  it('refuses malformed operations with the SCIM type that says why', () => {
    expect(refusal(() => parseGroupPatch({ Operations: [] }))).toBe('invalidSyntax');
    expect(refusal(() => patch({ op: 'move', path: 'members' }))).toBe('invalidSyntax');
    expect(refusal(() => patch({ op: 'remove' }))).toBe('noTarget');
    expect(refusal(() => patch({ op: 'remove', path: 'displayName' }))).toBe('mutability');
    expect(refusal(() => patch({ op: 'add', path: 'members', value: [{ value: '0' }] }))).toBe('invalidValue');
    expect(refusal(() => patch({ op: 'remove', path: 'members[value eq "x"]' }))).toBe('invalidValue');
    expect(refusal(() => patch({ op: 'replace', path: 'displayName', value: '' }))).toBe('invalidValue');
    expect(
      refusal(() => patch(...Array.from({ length: 101 }, () => ({ op: 'add', path: 'externalId', value: 'x' })))),
    ).toBe('tooMany');
  });

  it('a Group resource needs a displayName; members default to none', () => {
    expect(parseGroupResource({ displayName: 'A' })).toEqual({ displayName: 'A', members: [], add: [], remove: [] });
    expect(parseGroupResource({ displayName: 'A', members: [{ value: 12 }] }).members).toEqual([12]);
    expect(refusal(() => parseGroupResource({ members: [] }))).toBe('invalidValue');
    expect(refusal(() => parseGroupResource('x'))).toBe('invalidSyntax');
  });
});
