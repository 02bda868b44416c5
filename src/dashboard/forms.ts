// Pieces of forms shared by the pages: the CSRF field, one-button action forms, labelled fields that point at
// their own error, checkbox groups, secrets with a copy button, and a pager.
import type { Problem } from './errors.js';
import { type Html, href, html } from './html.js';

export const csrfField = (csrf: string): Html => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A POST form holding one button: every state-changing action is a POST with the session's CSRF token. */
export function actionButton(
  action: string,
  label: string,
  csrf: string,
  opts: { cls?: string; fields?: Record<string, string>; describedBy?: string } = {},
): Html {
  const hidden = Object.entries(opts.fields ?? {}).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  );
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}${hidden}<button type="submit"${
    opts.cls ? html` class="${opts.cls}"` : ''
  }${opts.describedBy ? html` aria-describedby="${opts.describedBy}"` : ''}>${label}</button></form>`;
}

/** The message of a field's error, tied to the control by aria-describedby. */
export function fieldError(problem: Problem | undefined, field: string): { attrs: Html; message: Html } {
  const e = problem?.fields.find((f) => f.field === field || f.field.startsWith(`${field}[`));
  if (!e) return { attrs: html``, message: html`` };
  return {
    attrs: html` aria-invalid="true" aria-describedby="e-${field}"`,
    message: html`<p class="field-error" id="e-${field}">${e.message}</p>`,
  };
}

export interface Choice {
  value: string;
  label: string;
  hint?: string;
}

/** A group of checkboxes under a legend; the fieldset carries the id error links point to. */
export function checkboxes(
  name: string,
  legend: string,
  choices: readonly Choice[],
  checked: readonly string[],
  problem?: Problem,
): Html {
  const err = fieldError(problem, name);
  const items = choices.map(
    (c, i) =>
      html`<li><input type="checkbox" id="${name}-${i}" name="${name}" value="${c.value}"${
        checked.includes(c.value) ? html` checked` : ''
      }> <label for="${name}-${i}"><code>${c.label}</code>${c.hint ? html` <span class="hint">${c.hint}</span>` : ''}</label></li>`,
  );
  return html`<fieldset id="f-${name}"${err.attrs}><legend>${legend}</legend>${err.message}<ul class="choices">${items}</ul></fieldset>`;
}

/** A value shown once, selectable, with a copy button the script reveals. */
export function secretField(id: string, label: string, value: string): Html {
  return html`<div class="secret"><label for="${id}">${label}</label>
<div class="copyrow"><input id="${id}" class="mono" readonly value="${value}" size="60">
<button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
<span class="copied" role="status" data-copied-for="${id}"></span></div></div>`;
}

/** Previous / next links of a page of results. */
export function pager(
  path: string,
  query: Record<string, string | undefined>,
  p: { total: number; limit: number; offset: number },
): Html {
  if (p.total <= p.limit) return html``;
  const prev =
    p.offset > 0
      ? html`<a href="${href(path, { ...query, offset: Math.max(0, p.offset - p.limit) })}" rel="prev">Previous</a>`
      : '';
  const next =
    p.offset + p.limit < p.total
      ? html`<a href="${href(path, { ...query, offset: p.offset + p.limit })}" rel="next">Next</a>`
      : '';
  return html`<nav class="pager" aria-label="Pages"><span>${p.offset + 1}–${Math.min(p.total, p.offset + p.limit)} of ${p.total}</span> ${prev} ${next}</nav>`;
}
