import { loadConfig } from '../../platform/config/app-config';
import { wantsDemoData } from './demo-data.service';

const SECRET = { JWT_SECRET: 'x'.repeat(32) };
const POSTGRES = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

describe('wantsDemoData (docs/contract.md: demo data on first start)', () => {
  it.each([
    ['embedded, development, SEED_DEMO unset', true, {}],
    ['embedded, development, SEED_DEMO=false', false, { SEED_DEMO: 'false' }],
    ['embedded, production, SEED_DEMO unset', false, { NODE_ENV: 'production', ...SECRET }],
    ['embedded, production, SEED_DEMO=true', true, { NODE_ENV: 'production', SEED_DEMO: 'true', ...SECRET }],
    ['PostgreSQL, development, SEED_DEMO unset', false, { ...POSTGRES }],
    ['PostgreSQL, development, SEED_DEMO=true', true, { ...POSTGRES, SEED_DEMO: 'true' }],
    ['PostgreSQL, production, SEED_DEMO unset', false, { ...POSTGRES, NODE_ENV: 'production', ...SECRET }],
    [
      'PostgreSQL, production, SEED_DEMO=true',
      true,
      { ...POSTGRES, NODE_ENV: 'production', SEED_DEMO: 'true', ...SECRET },
    ],
  ] as Array<[string, boolean, Record<string, string>]>)('%s → %s', (_label, expected, env) => {
    expect(wantsDemoData(loadConfig(env))).toBe(expected);
  });
});
