// The JSV and CSV writers against ServiceStack.Text's own vectors (research/rest-conventions.md §4.3, §5.3), and
// the JSV reader that form and query values use (CONTRACT §16).
import { describe, expect, it } from 'vitest';
import { csv } from '../../rest-facade/formats/csv.js';
import { jsv, readJsv } from '../../rest-facade/formats/jsv.js';

describe('JSV', () => {
  it.each([
    [{ Key: 'Value' }, '{Key:Value}'],
    [{ Id: 1234, Name: 'TEST', Obj: {} }, '{Id:1234,Name:TEST,Obj:{}}'],
    [{ Excludes: [{ Key: 'Value' }, { Key: 'Value' }] }, '{Excludes:[{Key:Value},{Key:Value}]}'],
    [{ Float: 1.1, Double: 2.2, Decimal: 3.3 }, '{Float:1.1,Double:2.2,Decimal:3.3}'],
    [['foo', 'bar'], '[foo,bar]'],
    [['a, b', "c 'd"], `["a, b",c 'd]`],
    ['https://url.com', '"https://url.com"'],
    [{ Date: '2001-01-13T00:00:00.000Z' }, '{Date:2001-01-13}'],
    [
      { Date: '2019-07-03T12:00:00.000Z', Ms: '2019-07-03T12:00:00.123Z' },
      '{Date:2019-07-03T12:00:00Z,Ms:2019-07-03T12:00:00.123Z}',
    ],
    [{ Bool: false, On: true }, '{Bool:False,On:True}'],
    [{ Name: 'Me, Junior' }, '{Name:"Me, Junior"}'],
    [{ Size: '2" x 1"' }, '{Size:"2"" x 1"""}'],
    [{ Foo: 'Bar', Greet: 'Hello World!' }, '{Foo:Bar,Greet:Hello World!}'],
    [{ Notes: null, Empty: '', Tags: [] }, '{Empty:"",Tags:[]}'],
  ])('%j → %s', (value, expected) => {
    expect(jsv(value)).toBe(expected);
  });
});

describe('JSV reader', () => {
  it.each([
    ['{Jurisdiction:CA,Number:7ABC123}', { Jurisdiction: 'CA', Number: '7ABC123' }],
    ['[user,ops]', ['user', 'ops']],
    [
      '{Address:"1 Queen St, Auckland",Latitude:-36.85}',
      { Address: '1 Queen St, Auckland', Latitude: '-36.85' },
    ],
    ['{Size:"2"" x 1""",Empty:"",Tags:[]}', { Size: '2" x 1"', Empty: '', Tags: [] }],
    [
      '{At:2026-07-03T12:00:00Z,Nested:{List:[{A:1},{A:2}]}}',
      { At: '2026-07-03T12:00:00Z', Nested: { List: [{ A: '1' }, { A: '2' }] } },
    ],
    ['plain', 'plain'],
  ])('%s', (text, expected) => {
    expect(readJsv(text)).toEqual(expected);
  });

  it('reads back what the writer writes (scalars as text)', () => {
    const value = {
      Name: 'Me, Junior',
      Size: '2" x 1"',
      Url: 'https://url.com',
      Tags: ['a, b', '[x]'],
      O: { K: '{v}' },
    };
    expect(readJsv(jsv(value))).toEqual(value);
  });

  it.each(['{A:1', '{A}', '[a,b', '{A:1}x', '"open', `${'['.repeat(40)}${']'.repeat(40)}`])(
    'refuses %s',
    (text) => {
      expect(() => readJsv(text)).toThrow(/JSV/);
    },
  );
});

describe('CSV', () => {
  it('quotes, doubles quotes, writes booleans, nulls, dates and nested values as ServiceStack does', () => {
    expect(csv([{ Id: 1, Name: '"Mr. Lee"' }], ['Id', 'Name'])).toBe('Id,Name\r\n1,"""Mr. Lee"""\r\n');
    expect(csv([{ Value: true }, { Value: false }, { Value: null }], ['Value'])).toBe(
      'Value\r\nTrue\r\nFalse\r\n\r\n',
    );
    expect(csv([{ D: '2018-01-01T00:00:00.000Z' }, { D: '2018-01-01T12:00:00.000Z' }], ['D'])).toBe(
      'D\r\n2018-01-01\r\n2018-01-01T12:00:00Z\r\n',
    );
    expect(
      csv([{ Plate: { Jurisdiction: 'NZ', Number: 'ABC123' }, Tags: ['a', 'b'] }], ['Plate', 'Tags']),
    ).toBe('Plate,Tags\r\n"{Jurisdiction:NZ,Number:ABC123}","[a,b]"\r\n');
    expect(csv([], ['Id'])).toBe('Id\r\n');
  });
});
