/**
 * Paths whose errors another standard shapes (SCIM's error schema under /scim): the global filter works out the
 * status and the contract's body as everywhere, then lets the dialect of the request's path rewrite the body
 * and name the content type. The feature that owns the paths registers its dialect when its module is created,
 * so common/ never imports it. Registering the same prefix again replaces the earlier one.
 */
export interface ErrorDialect {
  /** `/scim`: matches `/scim`, `/scim/…` and `/scim?…`, never `/v1/scim/…`. */
  pathPrefix: string;
  contentType: string;
  /** The body to send instead of `body` (the contract's error body, or the source's 429 array). */
  render(status: number, body: unknown): unknown;
}

const dialects = new Map<string, ErrorDialect>();

export function registerErrorDialect(dialect: ErrorDialect): void {
  dialects.set(dialect.pathPrefix, dialect);
}

export function errorDialectFor(url: string | undefined): ErrorDialect | undefined {
  if (url === undefined || dialects.size === 0) return undefined;
  for (const dialect of dialects.values()) {
    const prefix = dialect.pathPrefix;
    if (url.startsWith(prefix) && (url.length === prefix.length || '/?'.includes(url[prefix.length]))) {
      return dialect;
    }
  }
  return undefined;
}
