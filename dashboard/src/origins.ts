/**
 * Allowed origins as people type them, as the API takes them (`scheme://host[:port]`). Without a
 * scheme, what the person most likely means: `http://` for localhost, `*.localhost` and IP
 * addresses (a development server, as a rule without a certificate), `https://` elsewhere.
 */

/** localhost, *.localhost, an IPv4 or an IPv6 address: served over plain http as a rule. */
function plainHttpHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');
}

/** The origin `text` stands for, or undefined when it is none (another scheme, no host, not an address). */
export function asOrigin(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  try {
    if (scheme !== undefined) {
      if (scheme !== 'http' && scheme !== 'https') return undefined;
      return new URL(trimmed).origin;
    }
    const { hostname } = new URL(`http://${trimmed}`);
    return new URL(`${plainHttpHost(hostname) ? 'http' : 'https'}://${trimmed}`).origin;
  } catch {
    return undefined;
  }
}

/** Each entry typed (one per line or comma-separated), as an origin, or as typed when it is none (the API then says why). */
export function parseOrigins(text: string): { typed: string; origin: string | undefined }[] {
  return text
    .split(/[\s,]+/)
    .map((typed) => typed.trim())
    .filter(Boolean)
    .map((typed) => ({ typed, origin: asOrigin(typed) }));
}
