// Serialises an envelope in the negotiated format, with its content type and headers.
import { csv } from './csv.js';
import { html } from './html.js';
import { jsv } from './jsv.js';
import { contentTypes, type Format } from './negotiate.js';
import { xml } from './xml.js';

export interface Payload {
  /** The PascalCase envelope: `{"Car":{...}}`, `{"Cars":[...],"Metadata":{...}}` or `{"ResponseStatus":{...}}`. */
  envelope: Record<string, unknown>;
  /** The CSV rows: the resources of a list, the one resource, or the error. */
  rows: readonly Record<string, unknown>[];
  /** The CSV header. */
  columns: readonly string[];
  /** Lowercase plural for the CSV file name (`cars`). */
  fileName: string;
  /** The HTML page's title. */
  title: string;
}

export interface Rendered {
  body: string;
  headers: Record<string, string>;
}

export function render(p: Payload, format: Format, url: URL): Rendered {
  const type = { 'Content-Type': contentTypes[format] };
  switch (format) {
    case 'json':
      return { body: JSON.stringify(p.envelope), headers: type };
    case 'xml':
      return { body: xml(p.envelope), headers: type };
    case 'jsv':
      return { body: jsv(p.envelope), headers: type };
    case 'csv':
      return {
        body: csv(p.rows, p.columns),
        headers: { ...type, 'Content-Disposition': `attachment; filename="${p.fileName}.csv"` },
      };
    case 'html':
      return { body: html(p.envelope, p.title, url), headers: type };
  }
}

/** An error body's payload: the CSV is the single column `ResponseStatus`. */
export function errorPayload(status: Record<string, unknown>, title: string): Payload {
  return {
    envelope: { ResponseStatus: status },
    rows: [{ ResponseStatus: status }],
    columns: ['ResponseStatus'],
    fileName: 'error',
    title,
  };
}
