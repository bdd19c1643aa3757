import { connect, createServer, type Server, type Socket } from 'node:net';
import { DatabaseError, Pool } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors';

/** An error as node-postgres builds it from a server's ErrorResponse. */
function serverError(code: string, message: string, severity = 'ERROR'): DatabaseError {
  const error = new DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = severity;
  return error;
}

/** How TypeORM hands a driver's error to the caller. */
function wrapped(driverError: Error): QueryFailedError {
  return new QueryFailedError('SELECT "id" FROM "company"', [], driverError);
}

function failureOf(work: () => Promise<unknown>): Promise<Error> {
  return work().then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('isDatabaseUnavailable', () => {
  describe('errors of a database that cannot be reached (answered 503)', () => {
    it('a refused connection to a host with several addresses: an AggregateError with an empty message', async () => {
      // What `localhost` resolving to ::1 and 127.0.0.1 gives when nothing listens on either.
      const error = await new Promise<Error>((resolve) => {
        const socket = connect({
          host: 'db.invalid',
          port: 1,
          autoSelectFamily: true,
          lookup: (_host, _options, done) =>
            (done as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
              { address: '127.0.0.1', family: 4 },
              { address: '127.0.0.2', family: 4 },
            ]),
        });
        socket.on('error', resolve);
      });
      // Made in Node's realm, not the test's: compare by name.
      expect(error.name).toBe('AggregateError');
      expect(error.message).toBe('');
      expect(isDatabaseUnavailable(error)).toBe(true);
    });

    it('an AggregateError without a code of its own, through the errors it holds', () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
      expect(isDatabaseUnavailable(new AggregateError([new Error('other'), refused], ''))).toBe(true);
    });

    it('a refused connection through the pg pool', async () => {
      const pool = new Pool({ host: '127.0.0.1', port: 1, user: 'nobody', database: 'none' });
      try {
        const error = await failureOf(() => pool.query('SELECT 1'));
        expect(error).toMatchObject({ code: 'ECONNREFUSED' });
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(isDatabaseUnavailable(wrapped(error))).toBe(true);
      } finally {
        await pool.end();
      }
    });

    describe('against a server that accepts connections and never answers', () => {
      let silent: Server;
      let port: number;
      const accepted: Socket[] = [];
      beforeAll(async () => {
        silent = createServer((socket) => accepted.push(socket));
        await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
        port = (silent.address() as { port: number }).port;
      });
      afterAll(async () => {
        for (const socket of accepted) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      });

      it('the pool giving up on a new connection', async () => {
        const pool = new Pool({ host: '127.0.0.1', port, user: 'nobody', connectionTimeoutMillis: 100 });
        try {
          const error = await failureOf(() => pool.connect());
          expect(error.message).toBe('Connection terminated due to connection timeout');
          expect(isDatabaseUnavailable(error)).toBe(true);
        } finally {
          await pool.end();
        }
      });
    });

    it('the pool giving up waiting for a free connection: "timeout exceeded when trying to connect"', async () => {
      // Any object with connect/end stands in for a connection here; the waiting is pg-pool's own.
      class InstantClient {
        connect(callback: (error?: Error) => void) {
          setImmediate(() => callback());
        }
        end(callback?: () => void) {
          callback?.();
          return Promise.resolve();
        }
        on() {
          return this;
        }
        removeListener() {
          return this;
        }
      }
      const pool = new Pool({ max: 1, connectionTimeoutMillis: 50, Client: InstantClient as never });
      const held = await pool.connect();
      try {
        const error = await failureOf(() => pool.connect());
        expect(error.message).toBe('timeout exceeded when trying to connect');
        expect(isDatabaseUnavailable(error)).toBe(true);
      } finally {
        held.release();
        await pool.end();
      }
    });

    it.each([
      ['57P01 admin_shutdown', serverError('57P01', 'terminating connection due to administrator command', 'FATAL')],
      ['57P02 crash_shutdown', serverError('57P02', 'terminating connection because of crash of another process')],
      ['57P03 cannot_connect_now', serverError('57P03', 'the database system is starting up', 'FATAL')],
      ['53300 too_many_connections', serverError('53300', 'sorry, too many clients already', 'FATAL')],
      ['08006 connection_failure', serverError('08006', 'connection failure')],
      ['08001 unable to establish a connection', serverError('08001', 'could not connect to server')],
      ['08P01 protocol_violation', serverError('08P01', 'invalid frontend message type')],
    ])('%s from the server, bare and wrapped by TypeORM', (_name, error) => {
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(isDatabaseUnavailable(wrapped(error))).toBe(true);
    });

    it.each([
      'Query read timeout',
      'Connection terminated unexpectedly',
      'Connection terminated',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
      'Timed out after 1500 ms waiting for the embedded database',
    ])('"%s", wrapped by TypeORM', (message) => {
      expect(isDatabaseUnavailable(wrapped(new Error(message)))).toBe(true);
    });

    it.each(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])(
      'a socket error %s, as the cause of another error',
      (code) => {
        const socket = Object.assign(new Error(`${code} on the socket`), { code });
        expect(isDatabaseUnavailable(new Error('could not run the query', { cause: socket }))).toBe(true);
      },
    );
  });

  describe('errors of a query or the code (answered 500)', () => {
    it.each([
      ['42601 syntax_error', serverError('42601', 'syntax error at or near "SELEC"')],
      ['23505 unique_violation', serverError('23505', 'duplicate key value violates unique constraint "item_pkey"')],
      ['42P01 undefined_table', serverError('42P01', 'relation "companies" does not exist')],
      ['22P02 invalid_text_representation', serverError('22P02', 'invalid input syntax for type integer: "x"')],
    ])('%s, bare and wrapped by TypeORM', (_name, error) => {
      expect(isDatabaseUnavailable(error)).toBe(false);
      expect(isDatabaseUnavailable(wrapped(error))).toBe(false);
    });

    it.each([
      ['a plain Error', new Error('kaboom')],
      ['null', null],
      ['undefined', undefined],
      ['a string', 'ECONNREFUSED'],
      ['a number', 503],
      ['an object with an unrelated code', { code: 'ERR_INVALID_ARG_TYPE', message: 'bad argument' }],
    ])('%s', (_name, error) => {
      expect(isDatabaseUnavailable(error)).toBe(false);
    });

    it('an error that is its own cause, without looping', () => {
      const loop = new Error('loop') as Error & { cause?: unknown };
      loop.cause = loop;
      expect(isDatabaseUnavailable(loop)).toBe(false);
    });
  });
});
