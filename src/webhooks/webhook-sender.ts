import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket, TcpNetConnectOpts } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { isMetadataAddress } from './url-policy';
import { DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT } from './webhook-events';

/** What one POST to a receiver came to. */
export interface SendOutcome {
  /** The receiver's status; undefined when none came. */
  readonly status?: number;
  /** The first RESPONSE_BODY_LIMIT bytes of its answer, as text. */
  readonly body?: string;
  /** Why no status came: the address refused, a timeout, a reset, a TLS failure. */
  readonly error?: string;
  readonly durationMs: number;
  /** Cut short by `abortAll()` (the instance is stopping): not an attempt; the job is taken again elsewhere. */
  readonly aborted?: true;
}

const metadataRefused = (address: string, host: string) =>
  new Error(`${host === address ? address : `${host} (${address})`} is a cloud metadata address: never a webhook target`);

/** `lookup`, failing when an address it answers for `hostname` is a cloud metadata address. */
function refusingMetadata(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, address, family) => {
      if (err !== null) return callback(err, address, family);
      const found = (typeof address === 'string' ? [address] : address.map((a) => a.address)).find(isMetadataAddress);
      if (found !== undefined) return callback(metadataRefused(found, hostname), address, family);
      callback(null, address, family);
    });
}

/**
 * The connection options with the metadata rule on top of request-filtering-agent's, whose
 * `allowPrivateIPAddress` lets every link-local address through (its `allowMetaIPAddress` is about
 * 0.0.0.0 and ::, and its `denyIPAddressList` compares text, which `::ffff:a9fe:a9fe` escapes): an
 * IP address given as the host is refused at once (it throws, as the agent's own refusal does), a
 * name when it resolves to one.
 */
function refuseMetadata(options: TcpNetConnectOpts): TcpNetConnectOpts {
  if (options.host !== undefined && isMetadataAddress(options.host)) throw metadataRefused(options.host, options.host);
  return { ...options, lookup: refusingMetadata(options.lookup ?? dnsLookup) };
}

/** request-filtering-agent's http agent, refusing cloud metadata addresses whatever its options. */
export class DeliveryHttpAgent extends RequestFilteringHttpAgent {
  override createConnection(options: TcpNetConnectOpts, listener?: (error: Error | null, socket: Socket) => void): Socket {
    return super.createConnection(refuseMetadata(options), listener) as Socket;
  }
}

/** request-filtering-agent's https agent, refusing cloud metadata addresses whatever its options. */
export class DeliveryHttpsAgent extends RequestFilteringHttpsAgent {
  override createConnection(options: TcpNetConnectOpts, listener?: (error: Error | null, socket: Socket) => void): Socket {
    return super.createConnection(refuseMetadata(options), listener) as Socket;
  }
}

/**
 * POSTs webhook bodies. The agents (request-filtering-agent) check the address each connection is
 * actually made to — after DNS, so a name that resolved to a public address at registration and to
 * 127.0.0.1 now (DNS rebinding) is refused — and refuse loopback, private, link-local and unspecified
 * addresses unless `allowPrivate`, and cloud metadata addresses (isMetadataAddress) always. Redirects
 * are not followed (Node's client never does). The whole exchange has DELIVERY_TIMEOUT_MS; only the
 * first RESPONSE_BODY_LIMIT bytes of the answer are read, then the connection is dropped, so a
 * receiver that streams 100 MB costs 1 KB.
 */
export class WebhookSender {
  private readonly httpsAgent: DeliveryHttpsAgent;
  private readonly httpAgent?: DeliveryHttpAgent;
  /** Requests in flight, for abortAll(). */
  private readonly inFlight = new Map<ReturnType<typeof httpRequest>, () => void>();

  constructor(allowPrivate: boolean) {
    const options = { allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: false, keepAlive: false };
    this.httpsAgent = new DeliveryHttpsAgent(options);
    if (allowPrivate) this.httpAgent = new DeliveryHttpAgent(options); // http only with WEBHOOK_ALLOW_PRIVATE
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const done = (outcome: Omit<SendOutcome, 'durationMs'>): SendOutcome => ({
      ...outcome,
      durationMs: Math.round(performance.now() - started),
    });
    return new Promise((resolve) => {
      let settled = false;
      let req: ReturnType<typeof httpRequest> | undefined;
      const timer = setTimeout(() => {
        req?.destroy();
        finish({ error: `no complete answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
      }, DELIVERY_TIMEOUT_MS);
      const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(outcome));
      };
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      if (!secure && this.httpAgent === undefined) return finish({ error: 'http is not allowed (https only)' });
      try {
        req = (secure ? httpsRequest : httpRequest)(target, {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        });
      } catch (err) {
        return finish({ error: (err as Error).message }); // an IP literal refused by the agent throws here
      }
      const sent = req;
      this.inFlight.set(sent, () => {
        sent.destroy();
        finish({ error: 'the instance is stopping', aborted: true });
      });
      sent.on('close', () => this.inFlight.delete(sent));
      sent.on('error', (err) => finish({ error: err.message }));
      sent.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        const end = () => {
          res.destroy();
          finish({ status, body: Buffer.concat(chunks).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          const room = RESPONSE_BODY_LIMIT - kept;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          kept += Math.min(room, chunk.length);
          if (kept >= RESPONSE_BODY_LIMIT) end();
        });
        res.on('end', end);
        res.on('error', end); // a reset after the status: the status stands
      });
      sent.end(body);
    });
  }

  /** Ends every request in flight at once (a stopping instance); their senders get `aborted`. */
  abortAll(): void {
    for (const abort of [...this.inFlight.values()]) abort();
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent?.destroy();
  }
}
