import { parseRedisUrl, RedisUrlError } from './redis-url';

describe('parseRedisUrl', () => {
  it('keeps a one-server URL as it is, TLS or not', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({
      mode: 'server',
      url: 'redis://127.0.0.1:6379',
      tls: false,
    });
    expect(parseRedisUrl('rediss://u:p@cache.example.com:6380/2')).toEqual({
      mode: 'server',
      url: 'rediss://u:p@cache.example.com:6380/2',
      tls: true,
    });
  });

  it('reads the sentinels, the master name and the credentials of a Sentinel URL', () => {
    expect(parseRedisUrl('redis+sentinel://app:s%40cret@10.0.0.1:26379,10.0.0.2:26380,[::1]:26381/mymaster')).toEqual({
      mode: 'sentinel',
      nodes: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      masterName: 'mymaster',
      username: 'app',
      password: 's@cret',
      tls: false,
    });
    expect(parseRedisUrl('rediss+sentinel://:pw@sentinel.internal/main')).toMatchObject({
      mode: 'sentinel',
      nodes: [{ host: 'sentinel.internal', port: 26379 }],
      username: undefined,
      password: 'pw',
      tls: true,
    });
  });

  it('reads the seed nodes of a Cluster URL', () => {
    expect(parseRedisUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://default:tok@clustercfg.example.cache.amazonaws.com:6379')).toMatchObject({
      mode: 'cluster',
      username: 'default',
      password: 'tok',
      tls: true,
    });
  });

  it.each([
    ['http://127.0.0.1:6379'],
    ['redis+sentinels://127.0.0.1:26379/m'],
    ['redis://'],
    ['redis://127.0.0.1:6379/cache'],
    ['redis://127.0.0.1:6379?db=1'],
    ['redis+sentinel://127.0.0.1:26379'],
    ['redis+sentinel://127.0.0.1:26379/'],
    ['redis+sentinel://127.0.0.1:26379/has space'],
    ['redis+sentinel://127.0.0.1:99999/m'],
    ['redis+sentinel://127.0.0.1:26379,,127.0.0.2:26379/m'],
    ['redis+cluster://127.0.0.1:7000/0'],
    ['redis+cluster://'],
    ['redis+cluster://127.0.0.1:port'],
    ['redis+cluster://u:%zz@127.0.0.1:7000'],
  ])('refuses %s with a reason that does not repeat the value', (raw) => {
    let error: unknown;
    try {
      parseRedisUrl(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RedisUrlError);
    expect((error as Error).message).not.toContain('127.0.0.1');
    expect((error as Error).message).not.toContain('\n');
  });
});
