import { createStaffAuthClient, type StaffAuthClientOptions } from '../client';
import { FakeClock } from './fake-clock';
import { FakeService, type FakeServiceOptions } from './fake-service';

/**
 * A logged-in client of a fake service, both on one fake clock, with what the service recorded of the login
 * forgotten: a spec counts only the requests it makes.
 */
export async function loggedInClient(service: FakeServiceOptions = {}, client: Partial<StaffAuthClientOptions> = {}) {
  const clock = new FakeClock();
  const server = new FakeService(clock, service);
  const api = createStaffAuthClient({ baseUrl: 'http://service.test', fetch: server.fetch, clock, ...client });
  await clock.runUntil(api.login({ email: 'a@example.test', password: 'pw' }));
  server.received.length = 0;
  server.maxInFlight = 0;
  server.maxLeases = 0;
  return { clock, server, client: api };
}
