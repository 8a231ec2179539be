/**
 * The ceiling bench:gateway compares against: a bare express app answering GET /ping with a small JSON body, in a
 * process of its own like the service it is compared with. Prints its port on stdout.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.get('/ping', (_req, res) => void res.json({ ok: true }));
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGINT', () => server.close(() => process.exit(0)));
