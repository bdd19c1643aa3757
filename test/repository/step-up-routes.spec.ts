import { type RouteRule, routeRules } from '../support/route-rules';
import { expectGeneratedTable } from './generated-tables';

/** `PUT /v1/users/:id/permissions` → `PUT /v1/users/{id}/permissions`, as the docs and the contract write it. */
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
  it('docs/identity.md shows exactly the table the route metadata produces, row for row', () => {
    expectGeneratedTable('docs/identity.md', 'step-up routes', stepUpTable());
  });
});
