import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '../../identity/auth/auth.guard';
import { InputSanityGuard } from '../../platform/common/http/input-sanity';
import { RateLimitGuard } from '../../rate-limiting/limiter/rate-limit.guard';

/**
 * The one global guard: a request's whole admission in one `canActivate`, in the order docs/contract.md needs.
 * First the rate limit (every request counts, those that then fail authentication included, and a refused one
 * still carries the headers), then the credential and the route's access rule (and step-up), then input sanity
 * (before any pipe or handler sees the body). Each step stays in its owner's module and reads its piece of the
 * route's compiled plan; this only orders them, and waits only for a step that could not decide at once (a
 * counter in Redis, a credential seen for the first time).
 *
 * One guard rather than three: Nest awaits each global guard's answer in turn, a promise turn apiece even for a
 * plain `true`.
 */
@Injectable()
export class RequestGuard implements CanActivate {
  constructor(
    private readonly limit: RateLimitGuard,
    private readonly access: AuthGuard,
    private readonly sanity: InputSanityGuard,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const counted = this.limit.canActivate(context);
    if (counted instanceof Promise) return counted.then((ok) => ok && this.admit(context));
    return counted && this.admit(context);
  }

  private admit(context: ExecutionContext): boolean | Promise<boolean> {
    const admitted = this.access.canActivate(context);
    if (admitted instanceof Promise) return admitted.then((ok) => ok && this.sanity.canActivate(context));
    return admitted && this.sanity.canActivate(context);
  }
}
