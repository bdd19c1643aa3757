import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything received, headers included. */
  raw: string;
  /** How the connection ended first: the server's FIN (`end`), or an error such as ECONNRESET/EPIPE. */
  ending: 'end' | string;
  /** Every socket error seen, also after the FIN: a reset while the client still writes shows up here. */
  errors: string[];
}

export interface RawRequest {
  /** The bytes up to and including the blank line after the headers. */
  head: string;
  /** Sent after the head one by one, `delayMs` apart, unless the socket has ended. */
  chunks?: Buffer[];
  delayMs?: number;
  /** Keep sending the body after the server's answer and FIN (a client that does not read while writing). */
  keepSending?: boolean;
  timeoutMs?: number;
}

function parse(raw: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(' ')[1] ?? 0), headers, body: split === -1 ? '' : raw.slice(split + 4) };
}

/**
 * One request over a bare TCP socket, so a test sees what a client sees on the wire: the exact answer, and
 * whether the connection ended with a FIN or a reset (which HTTP client libraries blur).
 */
export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: request.keepSending === true });
    const received: Buffer[] = [];
    let ending: string | undefined;
    const errors: string[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no end of the connection within ${request.timeoutMs ?? 15_000} ms: ${Buffer.concat(received)}`),
      );
    }, request.timeoutMs ?? 15_000);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('end', () => (ending ??= 'end'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      ending ??= error.code ?? error.message;
      errors.push(error.code ?? error.message);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(received).toString('utf8');
      const answer = parse(raw);
      // docs/contract.md "Error bodies": also the answers written before routing, straight to the socket.
      if (answer.status > 0 && answer.headers['x-content-type-options'] !== 'nosniff') {
        reject(new Error(`a ${answer.status} answer without X-Content-Type-Options: nosniff: ${raw.slice(0, 300)}`));
        return;
      }
      resolve({ ...answer, raw, ending: ending ?? 'closed', errors });
    });
    socket.write(request.head);
    void (async () => {
      for (const chunk of request.chunks ?? []) {
        if (socket.destroyed || (!request.keepSending && ending !== undefined)) return;
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
        if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
      }
      if (request.keepSending && !socket.destroyed) socket.end();
    })().catch(() => undefined);
  });
}

/** `total` bytes as `size`-byte pieces, as Content-Length framing sends them. */
export function pieces(total: number, size: number, fill = 'a'): Buffer[] {
  const out: Buffer[] = [];
  for (let sent = 0; sent < total; sent += size) out.push(Buffer.alloc(Math.min(size, total - sent), fill));
  return out;
}

/** The same bytes in chunked transfer coding, with the terminating zero-length chunk. */
export function chunked(parts: Buffer[]): Buffer[] {
  return [
    ...parts.map((part) => Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])),
    Buffer.from('0\r\n\r\n'),
  ];
}

/** One answer read off a connection that stays open: framed by Content-Length or chunked coding. */
export interface FramedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The length of the first complete answer in `data`, or -1 while it is still arriving. */
function framedLength(data: Buffer): number {
  const split = data.indexOf('\r\n\r\n');
  if (split === -1) return -1;
  const { headers } = parse(data.subarray(0, split).toString('latin1'));
  let at = split + 4;
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    for (;;) {
      const lineEnd = data.indexOf('\r\n', at);
      if (lineEnd === -1) return -1;
      const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
      at = lineEnd + 2 + size + 2;
      if (at > data.length) return -1;
      if (size === 0) return at;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  return data.length >= at + length ? at + length : -1;
}

function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * GETs each path in turn on ONE connection, each sent only once the previous answer has arrived in full, as a
 * keep-alive client does. Rejects if the server closes the connection before the last answer.
 */
export function getOnOneConnection(port: number, paths: string[], timeoutMs = 15_000): Promise<FramedAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const answers: FramedAnswer[] = [];
    let pending = Buffer.alloc(0);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no answer to ${paths[answers.length]} in time`)), timeoutMs);
    const send = () =>
      socket.write(`GET ${paths[answers.length]} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: */*\r\n\r\n`);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      const length = framedLength(pending);
      if (length === -1) return;
      const raw = pending.subarray(0, length);
      pending = pending.subarray(length);
      const split = raw.indexOf('\r\n\r\n');
      const { status, headers } = parse(raw.subarray(0, split).toString('latin1'));
      const body = raw.subarray(split + 4);
      const chunked = headers['transfer-encoding']?.toLowerCase() === 'chunked';
      answers.push({ status, headers, body: (chunked ? unchunk(body) : body).toString('utf8') });
      if (answers.length < paths.length) return void send();
      clearTimeout(timer);
      socket.end();
      resolve(answers);
    });
    socket.on('close', () => {
      if (answers.length < paths.length) {
        fail(new Error(`the server closed the connection after ${answers.length} of ${paths.length} answers`));
      }
    });
    socket.on('error', (error) => fail(error));
    socket.on('connect', send);
  });
}
