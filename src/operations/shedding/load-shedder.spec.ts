import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RoutePlans } from '../../platform/common/http/route-plan';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import type { AppConfig } from '../../platform/config/app-config';
import { LoadShedder } from './load-shedder';

/** A request as the onRequest hook sees it: its raw message, and a response that emits 'close'. */
function arriving(complete: boolean) {
  const raw = { complete, method: 'GET' };
  const response = Object.assign(new EventEmitter(), { req: raw });
  const request = { raw, method: 'GET', routeOptions: { url: '/v1/things' } } as unknown as FastifyRequest;
  const reply = { raw: response } as unknown as FastifyReply;
  return { request, reply, close: () => response.emit('close') };
}

describe('the shedder’s count of requests in flight', () => {
  const shedder = new LoadShedder(
    { shedMaxInFlight: 10, shedMaxEventLoopDelayMs: 0 } as AppConfig,
    new RoutePlans(() => []),
    new AppMetrics(),
    { lagMs: () => 0 },
  );
  const inFlight = () => shedder.detector.requestsInFlight;

  it('an answered request gives its place back when its answer is sent, once', () => {
    const { request, reply, close } = arriving(true);
    expect(shedder.shedding(request, reply)).toBe(false);
    expect(inFlight()).toBe(1);
    shedder.settle(request);
    expect(inFlight()).toBe(0);
    close();
    shedder.settle(request);
    expect(inFlight()).toBe(0);
  });

  it('a client gone while its handler works: the place is kept until the handler answers', () => {
    const { request, reply, close } = arriving(true);
    shedder.shedding(request, reply);
    close();
    expect(inFlight()).toBe(1);
    shedder.settle(request);
    expect(inFlight()).toBe(0);
  });

  it('a client gone before its body arrived (no handler ran): the place is given back at the close, once', () => {
    const { request, reply, close } = arriving(false);
    shedder.shedding(request, reply);
    expect(inFlight()).toBe(1);
    close();
    expect(inFlight()).toBe(0);
    shedder.settle(request);
    expect(inFlight()).toBe(0);
  });
});
