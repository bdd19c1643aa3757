import { parsePatch, PATCH_OP_SCHEMA } from './scim-patch';
import { parseUserResource } from './scim-user';

const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_OP_SCHEMA], Operations });
const scimType = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { rawBody?: { status: string; scimType?: string } }).rawBody;
  }
  throw new Error('no error');
};

describe('SCIM PATCH', () => {
  it("Microsoft Entra ID's shapes: capitalised ops, active as a string, paths with filters and URNs", () => {
    expect(
      parsePatch(
        patch(
          { op: 'Replace', path: 'active', value: 'False' },
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'ann@example.com' },
          { op: 'Replace', path: 'name.givenName', value: 'Ann' },
          { op: 'Replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:name.familyName', value: 'Lee' },
          { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'x' },
          { op: 'Add', path: 'externalId', value: 'abc' },
        ),
      ),
    ).toEqual({ active: false, givenName: 'Ann', familyName: 'Lee' });
    expect(parsePatch(patch({ op: 'Replace', path: 'active', value: 'True' }))).toEqual({ active: true });
  });

  it("Okta's shape: replace without a path, active a boolean", () => {
    expect(parsePatch(patch({ op: 'replace', value: { active: false } }))).toEqual({ active: false });
    expect(
      parsePatch(patch({ op: 'replace', value: { userName: 'New@Example.com', name: { givenName: 'N' } } })),
    ).toEqual({ userName: 'new@example.com', givenName: 'N' });
  });

  it('remove clears a name part and refuses userName', () => {
    expect(parsePatch(patch({ op: 'remove', path: 'name.familyName' }))).toEqual({ familyName: '' });
    expect(scimType(() => parsePatch(patch({ op: 'remove', path: 'userName' })))).toMatchObject({
      scimType: 'mutability',
    });
  });

  it.each([
    [null, 'invalidSyntax'],
    [[], 'invalidSyntax'],
    [{ Operations: 'x' }, 'invalidSyntax'],
    [{ schemas: ['urn:other'], Operations: [{ op: 'add', path: 'active', value: true }] }, 'invalidSyntax'],
    [patch(), 'invalidSyntax'],
    [patch({ op: 'move', path: 'active', value: true }), 'invalidSyntax'],
    [patch({ op: 'replace', path: 'active' }), 'invalidSyntax'],
    [patch({ op: 'replace', path: 'active', value: 'maybe' }), 'invalidValue'],
    [patch({ op: 'replace', path: 'active', value: 1 }), 'invalidValue'],
    [patch({ op: 'replace', path: 'userName', value: 'not an e-mail' }), 'invalidValue'],
    [patch({ op: 'replace', path: '..', value: 1 }), 'invalidPath'],
    [patch({ op: 'replace', path: 42, value: 1 }), 'invalidPath'],
    [patch({ op: 'replace', value: 'x' }), 'invalidSyntax'],
    [patch({ op: 'remove' }), 'noTarget'],
    [patch('x'), 'invalidSyntax'],
    [patch({ op: 'replace', path: 'name', value: 'x' }), 'invalidValue'],
  ])('refuses %j with %s', (body, type) => {
    expect(scimType(() => parsePatch(body))).toMatchObject({ status: '400', scimType: type });
  });
});

describe('SCIM User resource', () => {
  it('reads userName, names and active (boolean or string), ignoring what is not kept', () => {
    expect(
      parseUserResource({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: ' Ann@Example.COM ',
        name: { givenName: 'Ann', familyName: 'Lee', formatted: 'Ann Lee' },
        emails: [{ value: 'ann@example.com', type: 'work', primary: true }],
        active: 'True',
        externalId: '00u1',
        title: 'x',
      }),
    ).toEqual({ userName: 'ann@example.com', givenName: 'Ann', familyName: 'Lee', active: true });
  });

  it.each([
    [{}, 'invalidValue'],
    [{ userName: 3 }, 'invalidValue'],
    [{ userName: 'a@example.com', active: 'yes' }, 'invalidValue'],
    [{ userName: 'a@example.com', emails: 'x' }, 'invalidValue'],
    [{ userName: 'a@example.com', schemas: 'x' }, 'invalidSyntax'],
    ['text', 'invalidSyntax'],
  ])('refuses %j with %s', (body, type) => {
    expect(scimType(() => parseUserResource(body))).toMatchObject({ status: '400', scimType: type });
  });
});
