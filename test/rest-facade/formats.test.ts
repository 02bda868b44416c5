// The five formats of CONTRACT §11, chosen by `format` or `Accept` (§2), for resources, searches and errors:
// JSV and CSV parsed back with independent readers, XML by a real XML parser, HTML in chromium.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { parseCsv, parseJsv, sameData } from './parsers.js';
import { useRest } from './support.js';

const env = useRest();
let token: string;
let carId: string;
const MODEL = 'Fiesta, Zetec "ST"';
const XSS = '<script>alert(1)</script> & <b>bold</b>';

beforeAll(async () => {
  const owner = await createUser(env.h);
  token = env.tokenFor(owner.actor);
  const body = {
    Make: 'Ford',
    Model: MODEL,
    Year: 2019,
    Transmission: 'Manual',
    Seats: 5,
    Description: XSS,
    LicensePlate: { Jurisdiction: 'NZ', Number: 'ABC123' },
    HomeLocation: { Address: '1 Queen St, Auckland', Latitude: -36.85, Longitude: 174.76 },
    HourlyRate: { Amount: '9.90', Currency: 'NZD' },
  };
  const r = await env.call('POST', '/api/cars', { token, body });
  carId = r.json.Car.Id;
  await env.call('POST', '/api/cars', { token, body: { ...body, Make: 'Kia', Model: 'Rio' } });
});

const get = (path: string, headers: Record<string, string> = {}) => env.call('GET', path, { token, headers });

describe('negotiation', () => {
  it.each([
    ['', {}, 'application/json; charset=utf-8'],
    ['', { Accept: '*/*' }, 'application/json; charset=utf-8'],
    ['', { Accept: 'application/xml' }, 'application/xml; charset=utf-8'],
    ['', { Accept: 'text/xml' }, 'application/xml; charset=utf-8'],
    ['', { Accept: 'text/jsv' }, 'text/jsv; charset=utf-8'],
    ['', { Accept: 'application/jsv' }, 'text/jsv; charset=utf-8'],
    ['', { Accept: 'text/csv' }, 'text/csv; charset=utf-8'],
    [
      '',
      { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      'text/html; charset=utf-8',
    ],
    ['', { Accept: 'image/png' }, 'application/json; charset=utf-8'],
    ['?format=json', { Accept: 'application/xml' }, 'application/json; charset=utf-8'],
    ['?format=XML', {}, 'application/xml; charset=utf-8'],
    ['?Format=jsv', { Accept: 'text/html' }, 'text/jsv; charset=utf-8'],
  ])('GET /api/cars/{Id}%s with %j → %s', async (query, headers, type) => {
    const r = await get(`/api/cars/${carId}${query}`, headers);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(type);
  });

  it('an unknown format is 406 UnsupportedFormat in JSON listing the formats', async () => {
    const r = await get(`/api/cars/${carId}?format=yaml`, { Accept: 'application/xml' });
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.json.ResponseStatus).toMatchObject({
      ErrorCode: 'UnsupportedFormat',
      Meta: { Supported: ['json', 'xml', 'csv', 'jsv', 'html'] },
    });
  });
});

describe('JSV', () => {
  it('a resource parses back to the JSON data: raw names, True/False, quoting, short raw dates', async () => {
    const json = (await get(`/api/cars/${carId}`)).json;
    const r = await get(`/api/cars/${carId}?format=jsv`);
    expect(r.text.startsWith('{Car:{Id:')).toBe(true);
    expect(r.text).not.toContain('"Id":');
    expect(r.text).toContain('Model:"Fiesta, Zetec ""ST"""');
    expect(r.text).toContain('IsVerified:False');
    expect(r.text).toMatch(/CreatedDateUtc:2026-07-01T10:00:00Z[,}]/);
    expect(sameData(parseJsv(r.text), json)).toBe(true);
  });

  it('a filtered search parses back, Metadata included (without the null Distinct)', async () => {
    const json = (await get('/api/cars?filter=Make&limit=1&sort=make')).json;
    const r = await get('/api/cars?format=jsv&filter=Make&limit=1&sort=make');
    expect(r.text).toBe(
      `{Cars:[{Id:${json.Cars[0].Id},Make:Ford}],Metadata:{Total:2,Limit:1,Offset:0,Sort:{By:Make,Direction:Ascending},Filter:{Fields:[Make]}}}`,
    );
    expect(sameData(parseJsv(r.text), { ...json, Metadata: { ...json.Metadata, Distinct: null } })).toBe(
      true,
    );
  });

  it('errors are JSV too', async () => {
    const r = await get(`/api/cars/${randomUUID()}?format=jsv`);
    expect(r.status).toBe(404);
    const parsed = parseJsv(r.text) as any;
    expect(parsed.ResponseStatus.ErrorCode).toBe('NotFound');
    expect(parsed.ResponseStatus.Errors).toEqual([]);
  });
});

describe('CSV', () => {
  it('a search is one row per resource with a header, CRLF, JSV cells, equal to the JSON', async () => {
    const json = (await get('/api/cars?sort=make')).json;
    const r = await get('/api/cars?sort=make&format=csv');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="cars.csv"');
    expect(r.text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(r.text);
    expect(header![0]).toBe('Id');
    expect(rows).toHaveLength(json.Cars.length);
    rows.forEach((row, i) => {
      const car = json.Cars[i];
      header!.forEach((col, k) => {
        const cell = row[k]!;
        const value = cell.startsWith('{') || cell.startsWith('[') ? parseJsv(cell) : cell;
        expect(sameData(value, car[col]), `${col}: ${cell}`).toBe(true);
      });
    });
    expect(r.text).toContain('"Fiesta, Zetec ""ST"""');
    expect(r.text).toContain('"{Jurisdiction:NZ,Number:ABC123}"');
  });

  it('a single resource is one row; a filter narrows the columns; an error is the ResponseStatus column', async () => {
    const one = parseCsv((await get(`/api/cars/${carId}?format=csv`)).text);
    expect(one).toHaveLength(2);
    const filtered = parseCsv((await get('/api/cars?format=csv&filter=model,make&sort=make')).text);
    expect(filtered[0]).toEqual(['Id', 'Make', 'Model']);
    const err = await get(`/api/cars/${randomUUID()}?format=csv`);
    expect(err.status).toBe(404);
    const [h, row] = parseCsv(err.text);
    expect(h).toEqual(['ResponseStatus']);
    expect((parseJsv(row![0]!) as any).ErrorCode).toBe('NotFound');
  });
});

describe('XML', () => {
  const parser = new XMLParser({
    parseTagValue: false,
    isArray: (name) => ['Car', 'Verification', 'Item'].includes(name),
  });

  it('is well-formed, rooted at Response, with escaped text, lowercase booleans and the same data', async () => {
    const json = (await get(`/api/cars/${carId}`)).json;
    const r = await get(`/api/cars/${carId}?format=xml`);
    expect(r.text.startsWith('<?xml version="1.0" encoding="utf-8"?><Response><Car><Id>')).toBe(true);
    expect(XMLValidator.validate(r.text)).toBe(true);
    expect(r.text).toContain('&lt;script&gt;');
    expect(r.text).toContain('<IsVerified>false</IsVerified>');
    const doc = parser.parse(r.text);
    const car = doc.Response.Car[0];
    expect(car.Id).toBe(carId);
    expect(car.Description).toBe(XSS);
    expect(car.Model).toBe(MODEL);
    expect(car.LicensePlate).toEqual({ Jurisdiction: 'NZ', Number: 'ABC123' });
    expect(car.Verifications.Verification.map((v: any) => v.Id)).toEqual(
      json.Car.Verifications.map((v: any) => v.Id),
    );
  });

  it('a search holds repeated elements and scalar arrays as Item; errors are XML', async () => {
    const r = await get('/api/cars?format=xml&filter=make');
    expect(XMLValidator.validate(r.text)).toBe(true);
    const doc = parser.parse(r.text);
    expect(doc.Response.Cars.Car).toHaveLength(2);
    expect(doc.Response.Metadata.Filter.Fields.Item).toEqual(['Make']);
    expect(r.text).not.toContain('<Distinct');
    const err = await get(`/api/cars/${randomUUID()}?format=xml`);
    expect(err.status).toBe(404);
    expect(err.text).toMatch(/<Response><ResponseStatus><ErrorCode>NotFound<\/ErrorCode><Message>/);
    expect(XMLValidator.validate(err.text)).toBe(true);
  });
});

describe('HTML', () => {
  it('escapes every value and links to the other formats; renders in chromium without script errors', async () => {
    const r = await get(`/api/cars/${carId}?format=html&embed=none`);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('<script>alert(1)</script>');
    for (const f of ['json', 'xml', 'csv', 'jsv'])
      expect(r.text).toContain(`href="/api/cars/${carId}?embed=none&amp;format=${f}"`);
    const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
    expect(executablePath, 'chromium is installed').toBeDefined();
    const browser = await chromium.launch({
      executablePath: executablePath!,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('dialog', (d) => {
        problems.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      await page.setContent(r.text);
      expect(problems).toEqual([]);
      expect(await page.locator('script').count()).toBe(0);
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text).toContain(XSS);
      expect(text).toContain(MODEL);
    } finally {
      await browser.close();
    }
  });

  it('errors are HTML pages with the error status', async () => {
    const r = await get(`/api/cars/${randomUUID()}`, { Accept: 'text/html' });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.text).toContain('NotFound');
  });
});
