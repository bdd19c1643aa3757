import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeRule, routeRules } from '../test/support/route-rules';
import { featureModules } from './feature-modules';

/**
 * Every route's access rule and rate-limit rule, read from the decorators without a database or an app. A new
 * route, or a changed rule, changes this table: review the line, then update it here in the same commit.
 * The routes of a feature module of src/features.ts are reviewed in its own `src/<folder>/<folder>.routes.txt`
 * (written by `npm run new:module`), so adding a module does not edit this file.
 * (The working-company switch also has its own 10 per 60 s per employee, enforced by CompanySwitchService.)
 */
const EXPECTED = `
DELETE /scim/v2/Groups/:id                     own guard: SCIM bearer token                  scim: 3 per 3 s
DELETE /scim/v2/Users/:id                      own guard: SCIM bearer token                  scim: 3 per 3 s
DELETE /v1/apikeys/:id                         permission apikeys:manage, JWT only           apikeys: 3 per 3 s
DELETE /v1/auditevents/streams/:id             permission auditevents:read, JWT only         auditevents: 3 per 3 s
DELETE /v1/roles/:id                           permission users:write                        roles: 3 per 3 s
DELETE /v1/scim/tokens/:id                     permission sso:manage, JWT only, step-up      scim: 3 per 3 s
DELETE /v1/sso/connection                      permission *, JWT only, step-up               sso: 3 per 3 s
DELETE /v1/users/:id                           permission users:write, JWT only              users: 3 per 3 s
DELETE /v1/users/invitations/:id               permission users:write, JWT only              users: 3 per 3 s
DELETE /v1/users/me/passkeys/:id               JWT only                                      users: 3 per 3 s
DELETE /v1/users/sessions/:id                  JWT only                                      users: 3 per 3 s
GET /                                          public                                        not rate limited
GET /.well-known/jwks.json                     public                                        not rate limited
GET /health                                    public                                        not rate limited
GET /health/live                               public                                        not rate limited
GET /metrics                                   public                                        not rate limited
GET /scim/v2/Groups                            own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/Groups/:id                        own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/ResourceTypes                     own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/ResourceTypes/:id                 own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/Schemas                           own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/Schemas/:id                       own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/ServiceProviderConfig             own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/Users                             own guard: SCIM bearer token                  scim: 30 per 3 s
GET /scim/v2/Users/:id                         own guard: SCIM bearer token                  scim: 30 per 3 s
GET /v1/apikeys                                permission apikeys:manage                     apikeys: 30 per 3 s
GET /v1/auditevents                            permission auditevents:read                   auditevents: 30 per 3 s
GET /v1/auditevents/streams                    permission auditevents:read                   auditevents: 30 per 3 s
GET /v1/auditevents/streams/:id/deliveries     permission auditevents:read                   auditevents: 30 per 3 s
GET /v1/ratelimits                             any credential                                ratelimits: 30 per 3 s
GET /v1/ratelimits/company                     permission auditevents:read                   ratelimits: 30 per 3 s
GET /v1/roles                                  permission users:read                         roles: 30 per 3 s
GET /v1/scim/tokens                            permission sso:manage                         scim: 30 per 3 s
GET /v1/sso/callback                           public                                        sso: 30 per 3 s
GET /v1/sso/connection                         permission sso:manage                         sso: 30 per 3 s
GET /v1/users                                  permission users:read                         users: 30 per 3 s
GET /v1/users/companies                        JWT only                                      users: 30 per 3 s
GET /v1/users/invitations                      permission users:read                         users: 30 per 3 s
GET /v1/users/me                               any credential                                users: 30 per 3 s
GET /v1/users/me/passkeys                      JWT only                                      users: 30 per 3 s
GET /v1/users/sessions                         JWT only                                      users: 30 per 3 s
PATCH /scim/v2/Groups/:id                      own guard: SCIM bearer token                  scim: 30 per 3 s
PATCH /scim/v2/Users/:id                       own guard: SCIM bearer token                  scim: 30 per 3 s
POST /scim/v2/Groups                           own guard: SCIM bearer token                  scim: 15 per 3 s
POST /scim/v2/Users                            own guard: SCIM bearer token                  scim: 15 per 3 s
POST /v1/apikeys                               permission apikeys:manage, JWT only, step-up  apikeys: 15 per 3 s
POST /v1/auditevents/streams                   permission auditevents:read, JWT only         auditevents: 15 per 3 s
POST /v1/roles                                 permission users:write                        roles: 15 per 3 s
POST /v1/scim/tokens                           permission *, JWT only, step-up               scim: 15 per 3 s
POST /v1/sso/backchannel-logout                public                                        sso: 15 per 3 s
POST /v1/sso/connection/domains/verify         permission *, JWT only, step-up               sso: 15 per 3 s
POST /v1/sso/exchange                          public                                        sso: 15 per 3 s
POST /v1/sso/start                             public                                        sso: 15 per 3 s
POST /v1/tokens/introspect                     permission tokens:introspect, API key only    tokens: 300 per 3 s
POST /v1/users                                 permission users:write                        users: 15 per 3 s
POST /v1/users/:id/mfa/reset                   permission users:write, JWT only, step-up     users: 15 per 3 s
POST /v1/users/:id/passwordreset               permission users:write, JWT only, step-up     users: 15 per 3 s
POST /v1/users/authenticatefinish              public                                        users: 15 per 3 s
POST /v1/users/authenticateinit                public                                        users: 15 per 3 s
POST /v1/users/changeworkingcompany            JWT only                                      users: 15 per 3 s
POST /v1/users/invitations                     permission users:write, JWT only              users: 15 per 3 s
POST /v1/users/invitations/accept              public                                        users: 15 per 3 s
POST /v1/users/logout                          JWT only                                      users: 15 per 3 s
POST /v1/users/me/mfa/totp                     JWT only                                      users: 15 per 3 s
POST /v1/users/me/mfa/totp/confirm             JWT only                                      users: 15 per 3 s
POST /v1/users/me/mfa/totp/disable             JWT only, step-up                             users: 15 per 3 s
POST /v1/users/me/passkeys                     JWT only                                      users: 15 per 3 s
POST /v1/users/me/passkeys/options             JWT only, step-up                             users: 15 per 3 s
POST /v1/users/me/password                     JWT only                                      users: 15 per 3 s
POST /v1/users/me/reauthenticate               JWT only                                      users: 15 per 3 s
POST /v1/users/passkeys/authenticate           public                                        users: 15 per 3 s
POST /v1/users/passkeys/options                public                                        users: 15 per 3 s
POST /v1/users/passwordreset                   public                                        users: 15 per 3 s
POST /v1/users/refreshtoken                    public                                        users: 15 per 3 s
PUT /scim/v2/Groups/:id                        own guard: SCIM bearer token                  scim: 15 per 3 s
PUT /scim/v2/Users/:id                         own guard: SCIM bearer token                  scim: 15 per 3 s
PUT /v1/roles/:id                              permission users:write, step-up               roles: 15 per 3 s
PUT /v1/sso/connection                         permission *, JWT only, step-up               sso: 15 per 3 s
GET /v1/company/policy                         any credential                                company: 30 per 3 s
PUT /v1/company/policy                         permission *, JWT only, step-up               company: 15 per 3 s
PUT /v1/users/:id/permissions                  permission users:write, step-up               users: 15 per 3 s
`;

const sortedLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .sort((a, b) => a.localeCompare(b));

describe('route rules', () => {
  const rules = routeRules();
  const features = featureModules().map((feature) => ({
    ...feature,
    controllers: (Reflect.getMetadata('controllers', feature.module) ?? []) as { name: string }[],
  }));
  const featureOf = (controller: string) =>
    features.find((feature) => feature.controllers.some((declared) => declared.name === controller));

  it('every route declares an access rule', () => {
    expect(rules.filter((rule) => rule.auth === undefined).map((rule) => rule.route)).toEqual([]);
  });

  it('match the reviewed table', () => {
    // Compared as sorted lines: a new line may be pasted anywhere, and a failure names only the lines that differ.
    const shared = rules.filter((rule) => !featureOf(rule.controller));
    expect(shared.map(describeRule).sort((a, b) => a.localeCompare(b))).toEqual(sortedLines(EXPECTED));
  });

  // (jest refuses an empty table: with no feature module there is nothing to compare.)
  if (features.length > 0)
    it.each(features.map((feature) => [feature.folder]))(
      'of the feature module %s match its reviewed table (src/<folder>/<folder>.routes.txt)',
      (folder) => {
        const own = rules.filter((rule) => featureOf(rule.controller)?.folder === folder);
        const reviewed = readFileSync(join(__dirname, 'features', folder, `${folder}.routes.txt`), 'utf8');
        expect(own.map(describeRule).sort((a, b) => a.localeCompare(b))).toEqual(sortedLines(reviewed));
      },
    );
});
