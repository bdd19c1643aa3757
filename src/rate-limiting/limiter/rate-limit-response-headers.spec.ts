import fc from 'fast-check';
import { serializeList, serializeString } from 'structured-headers';
import { stateField } from './rate-limit-response-headers';
import { policyField, policyName } from './rate-limit.policy';

describe('the IETF rate-limit fields', () => {
  it('names a policy `<method>-<group>` in lowercase and serializes RateLimit-Policy as an RFC 9651 List', () => {
    expect(policyName('GET', 'products')).toBe('get-products');
    expect(policyField(policyName('DELETE', 'marketingconversations'), 3)).toBe(
      '"delete-marketingconversations";q=3;w=3',
    );
  });

  it('joins RateLimit by hand exactly as the serializer would write the whole List', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]+-[a-z\-"\\]{1,20}$/), fc.nat(1_000_000), fc.nat(10), (name, r, t) => {
        const whole = serializeList([
          [
            name,
            new Map([
              ['r', r],
              ['t', t],
            ]),
          ],
        ]);
        expect(stateField(serializeString(name), r, t)).toBe(whole);
      }),
    );
  });

  it('refuses an Integer RFC 9651 cannot carry (over 15 digits) rather than write a malformed field', () => {
    expect(() => stateField('"x"', 1e15, 0)).toThrow();
    expect(stateField('"x"', 1e15 - 1, 0)).toBe('"x";r=999999999999999;t=0');
  });
});
