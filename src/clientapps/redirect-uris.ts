// Redirect URIs of an app (CONTRACT §5): absolute https URLs, or http on a loopback host for local development;
// no fragment; matched exactly at authorization time.
import { fieldLabel } from '../shared/errors.js';
import type { Check } from '../shared/validation.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function redirectUriProblem(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return undefined;
  return 'must be https (http only on localhost, 127.0.0.1 or [::1])';
}

export function checkRedirectUris(
  check: Check,
  field: string,
  uris: readonly string[],
  required: boolean,
): void {
  if (required && uris.length === 0) {
    check.add(
      'NotEmpty',
      field,
      `${fieldLabel(field)} must hold at least one URI for the authorization_code grant`,
    );
    return;
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) {
      check.add('InvalidFormat', field, `${fieldLabel(field)}: ${uri} ${problem}`);
      return;
    }
  }
}
