import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

interface Link {
  client: Socket;
  upstream?: Socket;
  flowing: boolean;
}

/**
 * A TCP proxy in front of the real PostgreSQL that can play the server going away (`refuse`: every socket
 * reset, the port closed) or the network swallowing everything (`blackhole`: connections accepted, no byte
 * forwarded either way, open ones stalled until the mode changes back).
 */
export class PostgresProxy {
  private readonly server: Server;
  private readonly links = new Set<Link>();
  private mode: ProxyMode = 'forward';
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => this.accept(client));
  }

  async start(): Promise<void> {
    await this.listen(0);
    this.port = (this.server.address() as { port: number }).port;
  }

  async setMode(mode: ProxyMode): Promise<void> {
    this.mode = mode;
    if (mode === 'refuse') {
      for (const link of this.links) this.drop(link);
      await this.stopListening();
      return;
    }
    if (!this.server.listening) await this.listen(this.port);
    for (const link of this.links) {
      if (mode === 'blackhole') this.stall(link);
      else if (!link.upstream) this.dial(link);
      else if (!link.flowing) this.pipe(link);
    }
  }

  async close(): Promise<void> {
    for (const link of this.links) this.drop(link);
    await this.stopListening();
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client, flowing: false };
    this.links.add(link);
    client.on('close', () => {
      link.upstream?.destroy();
      this.links.delete(link);
    });
    // In blackhole mode the connection is accepted and then left alone: its bytes wait in the socket.
    if (this.mode === 'forward') this.dial(link);
    else client.pause();
  }

  private dial(link: Link): void {
    const upstream = connect(this.targetPort, this.targetHost);
    link.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => link.client.destroy());
    this.pipe(link);
  }

  private pipe(link: Link): void {
    link.flowing = true;
    link.client.pipe(link.upstream!);
    link.upstream!.pipe(link.client);
  }

  private stall(link: Link): void {
    link.flowing = false;
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.pause();
    link.upstream?.pause();
  }

  private drop(link: Link): void {
    if (!link.client.destroyed) link.client.resetAndDestroy();
    if (link.upstream && !link.upstream.destroyed) link.upstream.resetAndDestroy();
    this.links.delete(link);
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  private stopListening(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
