import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The lane a request's database work waits in when the session is busy (docs/contract.md, "Shedding load"): the
 * requests that must get through an overload (health, logout and revocations, logins) are put in the first lane
 * by a hook on their routes, and the embedded database hands its session to the first lane before the rest. Every
 * other request stays in the second lane at no cost: nothing is stored for it.
 */
const firstLane = new AsyncLocalStorage<true>();

/** From here on, this request's database work goes ahead of the second lane's. Called before its handler runs. */
export function enterFirstLane(): void {
  firstLane.enterWith(true);
}

export function inFirstLane(): boolean {
  return firstLane.getStore() === true;
}
