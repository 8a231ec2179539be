import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type FaultMode = 'pass' | 'hang' | 'refuse';

/**
 * A TCP proxy for fault injection in front of a real service (here: grading's link to inference). `pass` forwards
 * bytes both ways; `hang` stops forwarding (calls in flight and new ones wait, as with a stalled engine);
 * `refuse` drops every connection and accepts none (the service is down). Not a fake: whatever passes is
 * answered by the real service.
 */
export class FaultProxy {
  private mode: FaultMode = 'pass';
  private target: { host: string; port: number } | undefined;
  private readonly links = new Set<{ client: Socket; upstream: Socket }>();
  private server: Server | undefined;

  async listen(): Promise<string> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  forwardTo(address: string): void {
    const [host, port] = address.split(':');
    this.target = { host: host!, port: Number(port) };
  }

  set(mode: FaultMode): void {
    this.mode = mode;
    for (const link of this.links) {
      if (mode === 'refuse') {
        link.client.destroy();
        link.upstream.destroy();
      } else if (mode === 'hang') {
        link.client.unpipe(link.upstream);
        link.upstream.unpipe(link.client);
      } else {
        link.client.pipe(link.upstream);
        link.upstream.pipe(link.client);
      }
    }
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'refuse' || !this.target) {
      client.destroy();
      return;
    }
    const upstream = createConnection(this.target);
    upstream.on('error', () => client.destroy());
    const link = { client, upstream };
    this.links.add(link);
    const drop = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    if (this.mode === 'pass') {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  }

  async close(): Promise<void> {
    this.set('refuse');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
