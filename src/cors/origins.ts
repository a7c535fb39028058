/**
 * The serialised origin (RFC 6454) of `value` — scheme, lower-case host, port only when not the
 * default — or undefined when it is not an http(s) origin. `https://Shop.example.com:443` and
 * `https://shop.example.com` compare equal; a path, query or credentials make it no origin at all.
 */
export function normalizeOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash || !/^https?:\/\/[^/]+\/?$/i.test(value)) return undefined;
  return url.origin;
}

/**
 * An API key's origin check (docs/API.md, "Browser clients (CORS)"). No Origin header: not a cross-origin browser call, and
 * a server could forge one anyway, so there is nothing to check. An empty list allows any origin; so do
 * `serviceOrigins`, Gatehouse's own pages (the dashboard), for every key.
 */
export function keyAllowsOrigin(
  allowedOrigins: readonly string[],
  origin: string | undefined,
  serviceOrigins: ReadonlySet<string>,
): boolean {
  if (origin === undefined || allowedOrigins.length === 0) return true;
  const sent = normalizeOrigin(origin);
  return sent !== undefined && (serviceOrigins.has(sent) || allowedOrigins.some((allowed) => normalizeOrigin(allowed) === sent));
}
