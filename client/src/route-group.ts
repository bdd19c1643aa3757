/**
 * Which bucket a request counts against, before it is sent: the server counts per method × API group, and an
 * API group is the controller's path, i.e. the first segment after `/v1` (`/v1/users/invitations/3` → `users`).
 * The OpenAPI document does not name groups, so the answers do: each one says which group it was counted in
 * (`RateLimit-Policy` or `X-Rate-Limit-Identifier`). When that differs from the path's first segment (a
 * controller filed under another group), the client remembers it for that method and segment.
 */
export class RouteGroups {
  private readonly learned = new Map<string, string>();

  /** The bucket key `METHOD group` of a request to `url`. */
  keyOf(method: string, url: string): string {
    const segment = firstSegment(url);
    const upper = method.toUpperCase();
    return `${upper} ${this.learned.get(`${upper} ${segment}`) ?? segment}`;
  }

  /** Records the group an answer to `method url` was counted in; true when it changed what {@link keyOf} says. */
  learn(method: string, url: string, group: string | undefined): boolean {
    if (!group) return false;
    const upper = method.toUpperCase();
    const segment = firstSegment(url);
    const before = this.learned.get(`${upper} ${segment}`) ?? segment;
    if (before === group) return false;
    this.learned.set(`${upper} ${segment}`, group);
    return true;
  }
}

function firstSegment(url: string): string {
  const path = new URL(url, 'http://client.invalid').pathname;
  const segments = path.split('/').filter((segment) => segment !== '' && !/^v\d+$/.test(segment));
  return segments[0] ?? '-';
}
