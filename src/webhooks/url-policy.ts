import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../common/errors/app-error';

export const MAX_URL_LENGTH = 2048;

/**
 * Where clouds serve an instance's metadata and credentials: 169.254.169.254 (AWS, Google Cloud,
 * Azure, Oracle, DigitalOcean, OpenStack), fd00:ec2::254 (AWS over IPv6), 169.254.170.2 (AWS ECS task
 * credentials), 169.254.170.23 and fd00:ec2::23 (AWS EKS Pod Identity), 100.100.100.200 (Alibaba
 * Cloud). Never a webhook target, not even with WEBHOOK_ALLOW_PRIVATE=true.
 */
const METADATA_ADDRESSES = new Set(
  ['169.254.169.254', 'fd00:ec2::254', '169.254.170.2', '169.254.170.23', 'fd00:ec2::23', '100.100.100.200'].map((a) =>
    ipaddr.process(a).toNormalizedString(),
  ),
);

/** Whether `address` (an IP address in any notation, IPv4 written as IPv6 too) is a cloud metadata address; false for a name. */
export function isMetadataAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  try {
    return METADATA_ADDRESSES.has(ipaddr.process(address).toNormalizedString());
  } catch {
    return false;
  }
}

/**
 * Whether a webhook may be sent to `address`: only a public unicast address. Loopback, private
 * (RFC 1918, unique local), link-local, carrier-grade NAT, multicast, unspecified and reserved ranges
 * are refused — which holds every metadata address — an IPv4 address written as IPv6
 * (`::ffff:127.0.0.1`) as what it is. The same rule as the delivery agent's (request-filtering-agent,
 * which checks the address actually connected to).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 → IPv4
  return parsed.range() === 'unicast';
}

const invalid = (message: string) => new AppError('validation_failed', message, [{ field: 'url', message }]);

/** The addresses `host` (a name or an IP address) stands for; undefined when it does not resolve. */
async function addressesOf(host: string): Promise<string[] | undefined> {
  if (isIP(host) !== 0) return [host];
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
}

/**
 * Checks a URL given for a webhook endpoint: https (http too when private addresses are allowed), no
 * user or password, at most 2048 characters, a host that does not resolve to a cloud metadata
 * address, and one that resolves only to public addresses unless `allowPrivate`. Throws 400
 * `validation_failed` naming what is wrong. Checked again on every delivery by the agent, on the
 * address it connects to, since DNS may answer differently later.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw invalid('url must be an https URL');
  if (url.username !== '' || url.password !== '') throw invalid('url must not carry a user name or password');
  if (url.hash !== '') throw invalid('url must not have a fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = await addressesOf(host);
  if (addresses?.some(isMetadataAddress) === true) throw invalid('url must not point to a cloud metadata address');
  if (allowPrivate) return url; // a name that does not resolve yet may on the private network; delivery checks again
  if (addresses === undefined) throw invalid(`url's host ${host} does not resolve`);
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw invalid('url must not point to a loopback, private, link-local or metadata address');
  return url;
}
