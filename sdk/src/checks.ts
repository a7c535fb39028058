import { GatehouseConfigurationError } from './errors';
import type { Checks, InvalidReason, NonceFacts } from './types';

/** Longest string Gatehouse reads as a nonce (its nonces are at most 458 characters). */
export const MAX_NONCE_LENGTH = 512;
export const DEFAULT_SOLVE_RATIO_FLOOR_MS = 300;

// C0 and C1 controls and DEL; lone UTF-16 surrogates (which no JSON encoder sends faithfully).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a value cannot be a nonce (decided without asking Gatehouse), or undefined when it may be one. */
export function malformation(nonce: unknown): string | undefined {
  if (nonce === undefined || nonce === null) return 'No nonce: the form carried no Gatehouse field.';
  if (typeof nonce !== 'string') return `The nonce is not a string (${Array.isArray(nonce) ? 'an array' : typeof nonce}).`;
  if (nonce.length === 0) return 'The nonce is empty.';
  if (nonce.length > MAX_NONCE_LENGTH) return `The nonce is longer than ${MAX_NONCE_LENGTH} characters.`;
  if (CONTROL.test(nonce)) return 'The nonce contains control characters.';
  if (LONE_SURROGATE.test(nonce)) return 'The nonce is not well-formed Unicode.';
  return undefined;
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A hostname pattern as written in `hostnames`, checked once: exact or `*.` + a name of at least two labels. */
function normalisePattern(pattern: unknown): string {
  if (typeof pattern !== 'string') throw new GatehouseConfigurationError('invalid_option', '`hostnames` must be strings.');
  const p = pattern.trim().toLowerCase().replace(/\.$/, '');
  const name = p.startsWith('*.') ? p.slice(2) : p;
  const ipv6 = /^\[[0-9a-f:.]+\]$/.test(name) && !p.startsWith('*.');
  const labels = name.split('.');
  const minLabels = p.startsWith('*.') ? 2 : 1;
  if (!ipv6 && (labels.length < minLabels || !labels.every((l) => HOST_LABEL.test(l))))
    throw new GatehouseConfigurationError(
      'invalid_option',
      `\`hostnames\`: "${pattern}" is not a hostname or "*." + a domain (no scheme, port or path).`,
    );
  return p;
}

function hostnameMatches(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return patterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1)) && host.length > p.length - 1 : host === p));
}

function nonNegative(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new GatehouseConfigurationError('invalid_option', `\`${name}\` must be a number ≥ 0.`);
  return value;
}

/** Checks with their patterns normalised and numbers validated (throws for a bad one). */
export function normaliseChecks(checks: Checks): Checks {
  const out: { -readonly [K in keyof Checks]: Checks[K] } = {};
  if (checks.hostnames !== undefined) {
    if (!Array.isArray(checks.hostnames)) throw new GatehouseConfigurationError('invalid_option', '`hostnames` must be an array.');
    out.hostnames = checks.hostnames.map(normalisePattern);
  }
  out.minCost = nonNegative('minCost', checks.minCost);
  out.minSolveRatio = nonNegative('minSolveRatio', checks.minSolveRatio);
  out.minSolveRatioFloorMs = nonNegative('minSolveRatioFloorMs', checks.minSolveRatioFloorMs);
  out.maxAgeMs = nonNegative('maxAgeMs', checks.maxAgeMs);
  if (checks.requireSurge !== undefined && typeof checks.requireSurge !== 'boolean')
    throw new GatehouseConfigurationError('invalid_option', '`requireSurge` must be true or false.');
  out.requireSurge = checks.requireSurge;
  return out;
}

/** The per-call checks over the verifier's: a field given on the call replaces the verifier's. */
export function mergeChecks(base: Checks, call: Checks | undefined): Checks {
  if (call === undefined) return base;
  const picked = normaliseChecks(call);
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(picked)) if (v !== undefined) merged[k] = v;
  return merged;
}

/** The first check a valid nonce fails, with why; undefined when it passes them all. */
export function failedCheck(facts: NonceFacts, checks: Checks, now: number): { reason: InvalidReason; message: string } | undefined {
  if (checks.hostnames !== undefined) {
    if (facts.hostname === null)
      return { reason: 'hostname_mismatch', message: 'The nonce was not obtained from a web page (no hostname).' };
    if (!hostnameMatches(facts.hostname, checks.hostnames))
      return { reason: 'hostname_mismatch', message: `The nonce was obtained on ${facts.hostname}, not one of the allowed hostnames.` };
  }
  if (facts.effort !== null) {
    const { cost, expectedSolveMs, solveMs } = facts.effort;
    if (checks.minCost !== undefined && cost < checks.minCost)
      return { reason: 'effort_too_low', message: `The proof of work's cost ${cost} is below ${checks.minCost}.` };
    const floor = checks.minSolveRatioFloorMs ?? DEFAULT_SOLVE_RATIO_FLOOR_MS;
    if (checks.minSolveRatio !== undefined && expectedSolveMs >= floor && solveMs < checks.minSolveRatio * expectedSolveMs)
      return {
        reason: 'effort_too_low',
        message: `The proof of work was solved in ${solveMs} ms, implausibly fast for one expected to take ${expectedSolveMs} ms.`,
      };
  }
  if (checks.requireSurge === true && facts.effort?.surge !== true)
    return { reason: 'effort_too_low', message: 'The proof of work was not solved at a surge’s raised difficulty.' };
  if (checks.maxAgeMs !== undefined && now - facts.issuedAt.getTime() > checks.maxAgeMs)
    return { reason: 'too_old', message: `The nonce was issued more than ${checks.maxAgeMs} ms ago.` };
  return undefined;
}
