import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type RouteRule, routeRules } from '../support/route-rules';

const ROOT = resolve(__dirname, '..', '..');

/** `PUT /v1/users/:id/permissions` → `PUT /v1/users/{id}/permissions`, as the README and the contract write it. */
const asDocumented = (route: string) => route.replace(/:(\w+)/g, '{$1}');

/** What an API key meets on a step-up route: it is never asked for a proof, but a JWT-only route refuses it. */
function apiKeyColumn(rule: RouteRule): string {
  if (rule.auth?.public !== false) return '';
  return rule.auth.jwtOnly ? 'refused (JWT only)' : 'allowed, no proof asked';
}

/** The step-up table, produced from the routes' own `@Auth({ stepUp: true })` metadata. */
export function stepUpTable(): string {
  const rows = routeRules()
    .filter((rule) => rule.auth && !rule.auth.public && rule.auth.stepUp)
    .map((rule) => {
      const auth = rule.auth as Extract<RouteRule['auth'], { public: false }>;
      const access = auth.permission ? `\`${auth.permission}\`` : 'any login token';
      return `| \`${asDocumented(rule.route)}\` | ${access} | ${apiKeyColumn(rule)} |`;
    });
  return ['| route | needs | an API key |', '|---|---|---|', ...rows].join('\n');
}

describe('step-up routes', () => {
  it('the README shows the table the route metadata produces', () => {
    const table = stepUpTable();
    // Printed so that a changed rule's new table can be pasted into the README.
    if (!readFileSync(join(ROOT, 'README.md'), 'utf8').includes(table)) console.log(table);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(table);
  });
});
