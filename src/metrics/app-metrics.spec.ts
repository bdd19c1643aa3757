import { AppMetrics, instanceRegistry, UNMATCHED_ROUTE } from './app-metrics';

describe('AppMetrics', () => {
  it('exposes request counts and a cumulative duration histogram per method, route template and status', async () => {
    const metrics = new AppMetrics();
    metrics.httpRequest('GET', '/v1/products/:id', 200, 0.0004);
    metrics.httpRequest('GET', '/v1/products/:id', 200, 0.02);
    metrics.httpRequest('GET', '/v1/products/:id', 200, 9);
    metrics.httpRequest('GET', undefined, 404, 0.001);
    const text = await metrics.scrape();
    const labels = 'method="GET",route="/v1/products/:id",status="200"';
    expect(text).toContain(`http_requests_total{${labels}} 3`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.001",${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.01",${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.025",${labels}} 2`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="5",${labels}} 2`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="+Inf",${labels}} 3`);
    expect(text).toContain(`http_request_duration_seconds_count{${labels}} 3`);
    expect(text).toMatch(
      new RegExp(`http_request_duration_seconds_sum\\{${labels.replace(/[/:]/g, '\\$&')}\\} 9\\.02`),
    );
    expect(text).toContain(`http_requests_total{method="GET",route="${UNMATCHED_ROUTE}",status="404"} 1`);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE http_requests_total counter');
  });

  it('counts rate-limit decisions by the group of the identifier, IPv6 clients included', async () => {
    const metrics = new AppMetrics();
    metrics.rateLimitDecision('203.0.113.7|GET|products|9f86d081884c7d65', false);
    metrics.rateLimitDecision('2001:db8::1|POST|products|-', true);
    metrics.rateLimitDecision('::1|DELETE|apikeys|-', false);
    const text = await metrics.scrape();
    expect(text).toContain('rate_limit_decisions_total{group="products",outcome="allowed"} 1');
    expect(text).toContain('rate_limit_decisions_total{group="products",outcome="limited"} 1');
    expect(text).toContain('rate_limit_decisions_total{group="apikeys",outcome="allowed"} 1');
    expect(text).toContain('rate_limit_decisions_total{group="apikeys",outcome="limited"} 0');
  });

  it("reads one instance's own numbers when scraped", async () => {
    let queries = 5;
    const registry = instanceRegistry({
      credentialCacheEntries: () => 7,
      dbQueries: () => queries,
      rateLimitBreakerOpen: () => true,
      rateLimitFallbacks: () => 0,
    });
    queries = 9;
    const text = await registry.metrics();
    expect(text).toMatch(/^credential_cache_entries 7$/m);
    expect(text).toMatch(/^db_queries_total 9$/m);
    expect(text).toMatch(/^rate_limit_storage_breaker_open 1$/m);
    expect(text).toMatch(/^rate_limit_storage_fallbacks_total 0$/m);
  });
});
