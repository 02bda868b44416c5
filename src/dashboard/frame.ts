// What makes a set of server-rendered pages the operators dashboard or the platform console (CONTRACT §12, §22):
// where it lives, the scope and role it signs people in with, its cookies, its name and navigation. Everything
// else (sessions, sign-in, CSRF, the API client, the page frame) is one implementation both use.
import type { Html } from './html.js';

export interface Section {
  key: string;
  path: string;
  label: string;
}

export interface Frame {
  /** The path every page, form and asset begins with. */
  base: string;
  /** How sentences name it: `the ${name}`. */
  name: string;
  /** The brand in the header and the pages' titles. */
  brand: string;
  /** The label of its navigation. */
  navLabel: string;
  sections: readonly Section[];
  /** The one scope it asks for, and the role the signed-in account must hold. */
  scope: string;
  role: string;
  /** What the authorization request asks for, when more than `scope` (to read who signed in); `scope` otherwise. */
  ask?: string;
  /** Its cookies' names after `__Host-`; the sign-in cookie adds `-signin`. */
  cookie: string;
  /** The 403 page of an account without the role. */
  denied: { title: string; text: (who: Html) => Html };
}

/** The frame set on the request by the middleware serving it. */
export const frameOf = (state: Record<string, unknown>): Frame | undefined =>
  state.frame as Frame | undefined;
