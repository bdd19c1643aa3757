import { USER_SCHEMA } from './scim-user';
import { GROUP_SCHEMA } from './scim-group';

/** What /scim/v2 offers (RFC 7643 5-7): Users only, PATCH, filter on userName; no bulk, sort, ETags or groups. */

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export const MAX_RESULTS = 100;

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri: `${baseUrl.replace(/\/scim\/v2$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'A token from POST /v1/scim/tokens, sent as Authorization: Bearer <token>',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function userResourceType(baseUrl: string) {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A member of the company; userName is the e-mail of the account',
    schema: USER_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
  };
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function userSchema(baseUrl: string) {
  return {
    schemas: [SCHEMA_SCHEMA],
    id: USER_SCHEMA,
    name: 'User',
    description: 'User Account',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server', description: 'The e-mail of the account' }),
      attribute('name', {
        type: 'complex',
        subAttributes: [
          attribute('formatted', { mutability: 'readOnly' }),
          attribute('givenName'),
          attribute('familyName'),
        ],
      }),
      attribute('displayName'),
      attribute('active', { type: 'boolean', description: 'false suspends the membership in this company' }),
      attribute('emails', {
        type: 'complex',
        multiValued: true,
        description: 'Accepted; answered from userName',
        subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${USER_SCHEMA}` },
  };
}

export function groupResourceType(baseUrl: string) {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: "A role of the company; displayName is the role's name, members its holders",
    schema: GROUP_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
  };
}

export function groupSchema(baseUrl: string) {
  return {
    schemas: [SCHEMA_SCHEMA],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'Group (a role: its permissions are granted by an administrator, never by the directory)',
    attributes: [
      attribute('displayName', { required: true, uniqueness: 'server', description: "The role's name" }),
      attribute('members', {
        type: 'complex',
        multiValued: true,
        description: 'The holders of the role',
        subAttributes: [
          attribute('value', { mutability: 'immutable' }),
          attribute('display', { mutability: 'readOnly' }),
          attribute('$ref', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable' }),
          attribute('type', { mutability: 'immutable', canonicalValues: ['User'] }),
        ],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${GROUP_SCHEMA}` },
  };
}

export function listResponse<T>(resources: T[], totalResults: number, startIndex: number) {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
