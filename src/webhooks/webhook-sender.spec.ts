import { createServer, request, Server } from 'node:http';
import { AddressInfo, isIP, LookupFunction } from 'node:net';
import { isMetadataAddress } from './url-policy';
import { DeliveryHttpAgent, WebhookSender } from './webhook-sender';

/** Cloud metadata addresses as a URL may write them. */
const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'https://169.254.169.254/computeMetadata/v1/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://0xa9fea9fe/latest/meta-data/',
  'http://169.254.170.2/v2/credentials/',
  'http://169.254.170.23/v1/credentials',
  'http://[fd00:ec2::23]/v1/credentials',
  'http://100.100.100.200/latest/meta-data/',
];

describe('cloud metadata addresses', () => {
  it('are recognised in any notation, and nothing else is', () => {
    for (const address of ['169.254.169.254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', 'FD00:EC2:0:0:0:0:0:254', 'fd00:ec2::23'])
      expect([address, isMetadataAddress(address)]).toEqual([address, true]);
    for (const address of ['169.254.169.253', '169.254.1.1', 'fd00:ec2::253', '10.0.0.1', '127.0.0.1', 'metadata.google.internal', ''])
      expect([address, isMetadataAddress(address)]).toEqual([address, false]);
  });
});

/** WEBHOOK_ALLOW_PRIVATE=true lets loopback, private and link-local addresses through, never a metadata address. */
describe('a webhook sender that may send to private addresses', () => {
  let server: Server;
  let base: string;
  const sender = new WebhookSender(true);

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    sender.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends to loopback', async () => {
    expect(await sender.send(`${base}/hook`, {}, '{}')).toMatchObject({ status: 200, body: 'reached' });
  });

  it.each(METADATA_URLS)('refuses %s without connecting', async (url) => {
    const outcome = await sender.send(url, {}, '{}');
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toMatch(/is a cloud metadata address: never a webhook target/);
  });

  describe('a name', () => {
    const agent = new DeliveryHttpAgent({ allowPrivateIPAddress: true, keepAlive: false });
    afterAll(() => agent.destroy());

    /** A resolver that answers `address` for every name, as metadata.google.internal resolves on Google Cloud. */
    const answering =
      (address: string): LookupFunction =>
      (_hostname, options, callback) =>
        options.all === true ? callback(null, [{ address, family: isIP(address) }]) : callback(null, address, isIP(address));

    /** A GET of http://receiver.test:<port>/ through the delivery agent, the name resolved by `lookup`. */
    const get = (lookup: LookupFunction) =>
      new Promise<string>((resolve) => {
        const req = request({ host: 'receiver.test', port: new URL(base).port, path: '/', agent, lookup }, (res) => {
          res.resume();
          res.on('end', () => resolve(`status ${res.statusCode}`));
        });
        req.on('error', (err) => resolve(err.message));
        req.end();
      });

    it('is refused at connection when it resolves to a metadata address', async () => {
      expect(await get(answering('127.0.0.1'))).toBe('status 200');
      expect(await get(answering('169.254.169.254'))).toBe(
        'receiver.test (169.254.169.254) is a cloud metadata address: never a webhook target',
      );
      expect(await get(answering('fd00:ec2::254'))).toMatch(/receiver\.test \(fd00:ec2::254\) is a cloud metadata address/);
    });
  });
});
