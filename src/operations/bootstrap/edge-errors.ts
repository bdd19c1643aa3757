import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';

/** Path plus query string over this answers 414 (Node's header limit, 16 KiB, would answer 431 first). */
export const MAX_URL_LENGTH = 8 * 1024;

/**
 * How long a connection whose request body was not read is kept open after its answer, reading and dropping
 * what the client still sends, so that the answer is not lost to a reset (see {@link lingerBeforeClose}).
 */
export const LINGER_MS = 5_000;

interface EdgeAnswer {
  status: number;
  code: ErrorCode;
  message: string;
}

export const URI_TOO_LONG: EdgeAnswer = {
  status: 414,
  code: ErrorCode.UriTooLong,
  message: 'The request path or query string is longer than the limit.',
};

const BAD_REQUEST: EdgeAnswer = {
  status: 400,
  code: ErrorCode.BadRequest,
  message: 'The HTTP request is malformed.',
};

const HEADERS_TOO_LARGE: EdgeAnswer = {
  status: 431,
  code: ErrorCode.HeadersTooLarge,
  message: 'The request headers are larger than the limit.',
};

const REQUEST_TIMEOUT: EdgeAnswer = {
  status: 408,
  code: ErrorCode.BadRequest,
  message: 'The request did not arrive in time.',
};

export const SHUTTING_DOWN: EdgeAnswer = {
  status: 503,
  code: ErrorCode.ServiceUnavailable,
  message: 'The service is shutting down; try again shortly.',
};

export function edgeBody(answer: EdgeAnswer): ErrorBody {
  return { error: [answer.code], message: answer.message };
}

function rawResponse(answer: EdgeAnswer): string {
  const body = JSON.stringify(edgeBody(answer));
  return (
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Whether a header overflow happened on the request line itself (a URL over Node's limit) rather than a header. */
function isRequestLineOverflow(error: { rawPacket?: unknown }): boolean {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet) || packet.length === 0) return false;
  const lineEnd = packet.indexOf('\n');
  return lineEnd === -1 || lineEnd > MAX_URL_LENGTH;
}

const answeredSockets = new WeakSet<Socket>();

/**
 * Node's `clientError`: the request could not even be parsed, so no route, hook or filter runs. Written raw, in
 * the contract's shape (Fastify's default writes its own), then the connection is closed after a short linger.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The parser reports again on every further chunk; one answer per connection.
  if (answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  let answer = BAD_REQUEST;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') answer = REQUEST_TIMEOUT;
  else if (error.code === 'HPE_HEADER_OVERFLOW')
    answer = isRequestLineOverflow(error) ? URI_TOO_LONG : HEADERS_TOO_LARGE;
  // Like Node: never write into a response that has already started.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    socket.end(rawResponse(answer));
    const timer = setTimeout(() => socket.destroy(), 1_000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  } else {
    socket.destroy();
  }
}

/** Fastify's own router errors (`frameworkErrors`): a bad percent-encoding, a path parameter over its limit. */
export function frameworkErrors(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const answer = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? URI_TOO_LONG : BAD_REQUEST;
  // The framework's message quotes the path back; never echo the input.
  void reply
    .code(answer.status)
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .header('content-type', 'application/json; charset=utf-8')
    .send(edgeBody(answer));
}

/**
 * A connection whose request body is still arriving when the answer goes out (a 413, a 401 before an upload was
 * read) must close: Fastify and this module announce `Connection: close`. Node would then destroy the socket as
 * soon as the answer is flushed, and the client, still sending, would get a reset that also discards the answer
 * it has not read yet (EPIPE/ECONNRESET instead of the 413). Instead the server half-closes after the answer and
 * keeps reading and dropping the rest of the body until the client closes or the body ends, at most
 * {@link LINGER_MS}.
 */
export function lingerBeforeClose(raw: IncomingMessage): void {
  const socket = raw.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || lingeringSockets.has(socket)) return;
  lingeringSockets.add(socket);
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    socket.once('end', close);
    socket.once('close', () => clearTimeout(timer));
    // Whatever still reads the body (a multipart parser that gave up) lets go; the rest is dropped.
    raw.unpipe();
    raw.removeAllListeners('data');
    raw.on('error', () => undefined);
    raw.resume();
    if (raw.complete) setImmediate(close);
    else raw.once('end', () => setImmediate(close));
  };
}

const lingeringSockets = new WeakSet<Socket>();

const closingServers = new WeakSet<object>();

/**
 * From now on every new request to this app answers 503 `error_service_unavailable` (with `Connection: close`);
 * requests already in flight finish. main.ts calls it on SIGTERM before `app.close()`, whose shutdown hooks run
 * while the listener is still open; Fastify's own close (`preClose`) sets it too, for any other way of closing.
 */
export function beginShutdown(app: { getHttpAdapter(): { getInstance(): object } }): void {
  closingServers.add(app.getHttpAdapter().getInstance());
}

/** Fastify's own close (`preClose`) starts the 503s too, for any other way of closing than main.ts's SIGTERM. */
export function refuseWhileClosing(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done) => {
    closingServers.add(fastify);
    done();
  });
}

/**
 * The answers decided before routing: 503 while shutting down, 414 for a URL over the limit. True when it
 * answered the request.
 */
export function answeredAtEdge(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply): boolean {
  if (closingServers.has(fastify)) {
    reply.header('connection', 'close');
    sendEdge(reply, SHUTTING_DOWN);
    return true;
  }
  if (request.raw.url !== undefined && request.raw.url.length > MAX_URL_LENGTH) {
    sendEdge(reply, URI_TOO_LONG);
    return true;
  }
  return false;
}

/** An answer that goes out before the request body was read closes the connection, after a linger. */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (!bodyStillArriving(request.raw)) return;
  reply.header('connection', 'close');
  lingerBeforeClose(request.raw);
}

/**
 * Whether the request has a body (RFC 9112 6.3: only with Content-Length or Transfer-Encoding) that has not
 * been read to its end. `complete` alone is not enough: Node sets it only after the request handler's first
 * synchronous run, so an answer sent at once (the /admin and /docs files) would close a bodiless GET's
 * keep-alive connection.
 */
function bodyStillArriving(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const { 'content-length': length, 'transfer-encoding': coding } = raw.headers;
  return coding !== undefined || (length !== undefined && length !== '0');
}

function sendEdge(reply: FastifyReply, answer: EdgeAnswer): void {
  void reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(edgeBody(answer));
}
