import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { TestApp } from './test-app';

/** The port the app listens on, listening first if supertest has not: for requests supertest cannot make. */
export async function listeningPort(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer();
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A GET through node:http, whose headers may repeat (an array value sends the header once per entry). */
export function rawGet(port: number, path: string, headers: OutgoingHttpHeaders): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Bytes written to the socket as they are, and everything the server answers until it closes. Our
 * side stays open, as a client waiting for its answer (or still sending) keeps it: Node aborts the
 * request of a client that half-closes, so an answer that waits on I/O (a Redis counter) would be lost.
 */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
