'use strict';
// The physical reference: node:http answering small JSON with three headers, nothing else.
// Usage: node bench/bare-server.js <port>   (listens on 127.0.0.1 only)
const http = require('node:http');

const port = Number(process.argv[2] || process.env.PORT || 3999);
const body = JSON.stringify({ ok: true, keyId: '00000000-0000-0000-0000-000000000000', scopes: ['public'] });

http
  .createServer((req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-RateLimit-Limit': '6000',
      'X-RateLimit-Remaining': '5999',
      'X-RateLimit-Reset': '60',
    });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => console.log(`bare server on 127.0.0.1:${port}`));

process.on('SIGTERM', () => process.exit(0));
