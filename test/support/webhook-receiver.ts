import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.timeOrigin-based wall time of arrival (ms). */
  at: number;
  /** The status it was answered with; 0 when the sender went away before the answer. */
  status: number;
  /** The sender's port (which process sent it can be found from it). */
  remotePort: number;
}

/**
 * A webhook receiver on loopback for stream tests: records every request and answers each with what
 * `answer` decides (200 unless told otherwise).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: { headers: IncomingHttpHeaders; body: string; remotePort: number }) => number | Promise<number> =
    () => 200;
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const at = Date.now();
        const remotePort = req.socket.remotePort ?? 0;
        void Promise.resolve(this.answer({ headers: req.headers, body, remotePort })).then((answered) => {
          const status = req.socket.destroyed ? 0 : answered;
          this.received.push({ headers: req.headers, body, at, status, remotePort });
          if (status === 0) return;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver says no');
        });
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** The requests answered 2xx. */
  get accepted(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }

  async waitFor(predicate: () => boolean, withinMs: number, what: string): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((done) => setTimeout(done, 20));
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }
}
