import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../common/errors/app-error';

export const MAX_URL_LENGTH = 2048;

/**
 * Whether a webhook may be sent to `address`: only a public unicast address. Loopback, private
 * (RFC 1918, unique local), link-local (with the cloud metadata address 169.254.169.254),
 * carrier-grade NAT, multicast, unspecified and reserved ranges are refused, an IPv4 address
 * written as IPv6 (`::ffff:127.0.0.1`) as what it is. The same rule as the delivery agent's
 * (request-filtering-agent, which checks the address actually connected to).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 → IPv4
  return parsed.range() === 'unicast';
}

const invalid = (message: string) => new AppError('validation_failed', message, [{ field: 'url', message }]);

/**
 * Checks a URL given for a webhook endpoint: https (http too when private addresses are allowed), no
 * user or password, at most 2048 characters, and a host that resolves only to public addresses unless
 * `allowPrivate`. Throws 400 `validation_failed` naming what is wrong. Checked again on every
 * delivery by the agent, on the address it connects to, since DNS may answer differently later.
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
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw invalid(`url's host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw invalid('url must not point to a loopback, private, link-local or metadata address');
  return url;
}
