import { AppMetrics, UNMATCHED_ROUTE } from './app-metrics';

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

  it('reads the figures components register when scraped, not when registered', async () => {
    const metrics = new AppMetrics();
    let queries = 5;
    metrics.readCounter({ name: 'db_queries_total', help: 'statements', read: () => queries });
    metrics.readGauge({ name: 'credential_cache_entries', help: 'entries', read: () => 7 });
    queries = 9;
    const text = await metrics.scrape();
    expect(text).toMatch(/^credential_cache_entries 7$/m);
    expect(text).toMatch(/^db_queries_total 9$/m);
  });

  it("keeps each application's counts and figures to itself, and the process metrics in both", async () => {
    const first = new AppMetrics();
    const second = new AppMetrics();
    first.login('success');
    first.readGauge({ name: 'credential_cache_entries', help: 'entries', read: () => 3 });
    second.readGauge({ name: 'credential_cache_entries', help: 'entries', read: () => 4 });
    const [one, two] = [await first.scrape(), await second.scrape()];
    expect(one).toMatch(/^auth_logins_total\{outcome="success",method="password"\} 1$/m);
    expect(two).toMatch(/^auth_logins_total\{outcome="success",method="password"\} 0$/m);
    expect(one).toMatch(/^credential_cache_entries 3$/m);
    expect(two).toMatch(/^credential_cache_entries 4$/m);
    expect(one).toMatch(/^process_cpu_user_seconds_total /m);
    expect(two).toMatch(/^process_cpu_user_seconds_total /m);
  });
});
