// The human API reference at /docs: the OpenAPI document rendered on the server as one page, with no
// script and nothing fetched from elsewhere.
import { escapeHtml as e } from './formats/html.js';
import type { Json } from './openapi.errors.js';

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name?: string; in?: string; description?: string; $ref?: string; schema?: Json }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description?: string; $ref?: string }>;
};

const refName = (ref: string | undefined): string => ref?.split('/').pop() ?? '';

function schemaText(s: Json | undefined): string {
  if (!s) return '';
  if (typeof s.$ref === 'string') return refName(s.$ref);
  if (s.type === 'array') return `${schemaText(s.items as Json)}[]`;
  if (Array.isArray(s.enum)) return (s.enum as string[]).join(' | ');
  return [s.type, s.format].filter(Boolean).join(' ');
}

function operationHtml(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .filter((p) => p.name)
    .map(
      (p) =>
        `<tr><td><code>${e(p.name!)}</code></td><td>${e(p.in ?? '')}</td><td>${e(schemaText(p.schema))}</td><td>${e(p.description ?? '')}</td></tr>`,
    )
    .join('');
  const body = op.requestBody ? Object.values(op.requestBody.content)[0]?.schema.$ref : undefined;
  const responses = Object.entries(op.responses)
    .map(([code, r]) => `<li><b>${e(code)}</b> ${e(r.description ?? refName(r.$ref))}</li>`)
    .join('');
  return (
    `<section id="${e(`${method}-${path}`)}"><h3><span class="m ${e(method)}">${e(method.toUpperCase())}</span> <code>${e(path)}</code></h3>` +
    `<p>${e(op.summary ?? '')}</p>${op.description ? `<p class="d">${e(op.description)}</p>` : ''}` +
    (params ? `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th></th></tr>${params}</table>` : '') +
    (body ? `<p>Body: <a href="#schema-${e(refName(body))}">${e(refName(body))}</a></p>` : '') +
    `<ul>${responses}</ul></section>`
  );
}

function schemaHtml(name: string, s: Json): string {
  const props = Object.entries((s.properties as Record<string, Json>) ?? {})
    .map(
      ([k, p]) =>
        `<tr><td><code>${e(k)}</code></td><td>${e(schemaText(p))}</td><td>${e(String(p.description ?? ''))}</td></tr>`,
    )
    .join('');
  return `<section id="schema-${e(name)}"><h3>${e(name)}</h3>${s.description ? `<p>${e(String(s.description))}</p>` : ''}<table>${props}</table></section>`;
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}code{font-size:13px}' +
  'table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}' +
  '.m{font-weight:700;padding:0 .3em;border-radius:3px;color:#fff;background:#555}.get{background:#2a7}' +
  '.post{background:#27c}.put{background:#c82}.patch{background:#a5c}.delete{background:#c33}.d{color:#555}';

export function docsPage(doc: Json): string {
  const info = doc.info as { title: string; description: string; version: string };
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths))
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, path, op)]);
    }
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${e(info.title)}</title><style>${STYLE}</style></head><body>` +
    `<h1>${e(info.title)} <small>${e(info.version)}</small></h1><p>${e(info.description)}</p>` +
    '<p>The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>' +
    [...byTag].map(([tag, ops]) => `<h2>${e(tag)}</h2>${ops.join('')}`).join('') +
    `<h2>Schemas</h2>${Object.entries(schemas)
      .map(([n, s]) => schemaHtml(n, s))
      .join('')}</body></html>`
  );
}
