// FAKE FOR TESTS ONLY: a tiny in-process stand-in for the S3 REST API, NOT an S3 implementation.
// It supports path-style PUT/GET/DELETE of objects (`/<bucket>/<key>`), keeps objects in a Map,
// answers a missing key with 404 + `<Error><Code>NoSuchKey</Code></Error>`, and records request
// headers so tests can check the SDK signed them. It does not verify signatures or checksums.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeObject = { body: Buffer; contentType: string; metadata: Record<string, string> };
export type RecordedRequest = { method: string; path: string; headers: http.IncomingHttpHeaders };

export class FakeS3Server {
  readonly objects = new Map<string, FakeObject>();
  readonly requests: RecordedRequest[] = [];
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((e) => (e ? reject(e) : resolve())));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const objectPath = decodeURIComponent(url.pathname); // "/<bucket>/<key>" (path style)
    this.requests.push({ method: req.method ?? '', path: objectPath, headers: req.headers });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);

    if (req.method === 'PUT') {
      const metadata: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name.startsWith('x-amz-meta-') && typeof value === 'string') metadata[name.slice('x-amz-meta-'.length)] = value;
      }
      this.objects.set(objectPath, { body, contentType: req.headers['content-type'] ?? 'application/octet-stream', metadata });
      res.writeHead(200, { etag: '"fake"' }).end();
      return;
    }
    if (req.method === 'GET') {
      const obj = this.objects.get(objectPath);
      if (!obj) {
        res
          .writeHead(404, { 'content-type': 'application/xml' })
          .end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`);
        return;
      }
      const headers: Record<string, string> = { 'content-type': obj.contentType, 'content-length': String(obj.body.length), etag: '"fake"' };
      for (const [k, v] of Object.entries(obj.metadata)) headers[`x-amz-meta-${k}`] = v;
      res.writeHead(200, headers).end(obj.body);
      return;
    }
    if (req.method === 'DELETE') {
      this.objects.delete(objectPath);
      res.writeHead(204).end();
      return;
    }
    res.writeHead(405).end();
  }
}
