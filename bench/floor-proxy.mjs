#!/usr/bin/env node
// The floor under any Node.js gateway on this machine, for comparison only: node:http in
// front of one undici Pool, parsing the JSON body and writing it back out with the model
// id set (as the gateway must), relaying status, headers and body. No routing, no checks,
// no metering, no framework. What the gateway costs beyond this is svc's own.
//   --port N --upstream http://127.0.0.1:P
import { createServer } from 'node:http';
import { Pool } from 'undici';

const args = process.argv.slice(2);
const flag = (name) => args[args.indexOf(name) + 1];
const pool = new Pool(flag('--upstream'), { connections: null, pipelining: 1, keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const upstream = await pool.request({ method: 'POST', path: req.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, model: body.model }) });
      const headers = {};
      for (const [name, value] of Object.entries(upstream.headers)) if (name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding') headers[name] = value;
      res.writeHead(upstream.statusCode, headers);
      if (upstream.headers['content-length'] === undefined) res.flushHeaders();
      upstream.body.on('data', (chunk) => res.write(chunk)).on('end', () => res.end()).on('error', () => res.destroy());
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(flag('--port')), '127.0.0.1', () => process.stderr.write('floor proxy: listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
