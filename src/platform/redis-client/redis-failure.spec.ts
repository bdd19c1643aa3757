import { EventEmitter } from 'node:events';
import type { RedisConnection } from './redis-connection';
import { describeRedisFailure, RedisFailureWatch } from './redis-failure';

function nodeError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

describe('describeRedisFailure', () => {
  const cases: Array<[Error, string, RegExp]> = [
    [
      nodeError('connect ECONNREFUSED 127.0.0.1:6390', { code: 'ECONNREFUSED', address: '127.0.0.1', port: 6390 }),
      'refused',
      /refused the connection at 127\.0\.0\.1:6390/,
    ],
    [nodeError('connect ETIMEDOUT', { code: 'ETIMEDOUT' }), 'timed_out', /did not answer in time/],
    [
      nodeError('self-signed certificate in certificate chain', { code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
      'certificate_not_trusted',
      /TLS certificate was refused \(SELF_SIGNED_CERT_IN_CHAIN.*REDIS_TLS_CA_FILE/,
    ],
    [
      nodeError('unable to verify the first certificate', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      'certificate_not_trusted',
      /REDIS_TLS_CA_FILE/,
    ],
    [
      nodeError("Hostname/IP does not match certificate's altnames", { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }),
      'certificate_not_trusted',
      /must name the host/,
    ],
    [
      new Error('WRONGPASS invalid username-password pair or user is disabled.'),
      'authentication_failed',
      /credentials/,
    ],
    [new Error('NOAUTH Authentication required.'), 'authentication_failed', /REDIS_URL/],
    [nodeError('getaddrinfo ENOTFOUND redis.invalid', { code: 'ENOTFOUND' }), 'host_not_found', /does not resolve/],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'other', /Stream isn't writeable/],
  ];
  it.each(cases.map(([error, kind, message]) => [`${error.message} → ${kind}`, error, kind, message] as const))(
    '%s',
    (_title, error, kind, message) => {
      const failure = describeRedisFailure(error);
      expect(failure.kind).toBe(kind);
      expect(failure.message).toMatch(message);
    },
  );

  it("looks through a Cluster's wrapper to the node's own error", () => {
    const wrapped = nodeError('Failed to refresh slots cache.', {
      lastNodeError: nodeError('connect ECONNREFUSED 127.0.0.1:7000', { code: 'ECONNREFUSED' }),
    });
    expect(describeRedisFailure(wrapped).kind).toBe('refused');
  });
});

describe('RedisFailureWatch', () => {
  const refused = nodeError('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' });
  const stream = new Error("Stream isn't writeable and enableOfflineQueue options is false");

  function watched() {
    const lines: Array<[string, Record<string, unknown>, string?]> = [];
    const logger = {
      warn: (obj: object, msg?: string) => lines.push(['warn', obj as Record<string, unknown>, msg]),
      info: (obj: object, msg?: string) => lines.push(['info', obj as Record<string, unknown>, msg]),
    };
    const connection = new EventEmitter();
    const watch = new RedisFailureWatch(logger).watch(connection as unknown as RedisConnection);
    return { lines, connection, watch };
  }

  it('logs each kind of failure once per outage, the return once, and again in the next outage', () => {
    const { lines, connection, watch } = watched();
    for (let i = 0; i < 5; i++) connection.emit('error', refused);
    expect(lines.map(([level, obj]) => [level, obj.reason])).toEqual([['warn', 'refused']]);
    expect(watch.current?.kind).toBe('refused');

    connection.emit('ready');
    expect(watch.current).toBeNull();
    connection.emit('error', refused);
    expect(lines.map(([level, obj]) => [level, obj.event, obj.reason])).toEqual([
      ['warn', 'redis_connection_failed', 'refused'],
      ['info', 'redis_connection_ready', undefined],
      ['warn', 'redis_connection_failed', 'refused'],
    ]);
  });

  it('keeps the telling reason for /health when a generic error follows in the same outage', () => {
    const { connection, watch } = watched();
    connection.emit('error', refused);
    connection.emit('error', stream);
    expect(watch.current?.kind).toBe('refused');
  });

  it('reports a Cluster node’s error ("node error") like the client’s own', () => {
    const { connection, watch } = watched();
    connection.emit('node error', refused, '127.0.0.1:7000');
    expect(watch.current?.kind).toBe('refused');
  });

  it('logs nothing for a connection that becomes ready without having failed', () => {
    const { lines, connection } = watched();
    connection.emit('ready');
    expect(lines).toEqual([]);
  });
});
