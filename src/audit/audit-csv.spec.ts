import { csvCell } from './audit-csv';

describe('csvCell', () => {
  it('writes plain text as it is and null as an empty cell', () => {
    expect(csvCell('owner@example.com')).toBe('owner@example.com');
    expect(csvCell('203.0.113.7')).toBe('203.0.113.7');
    expect(csvCell('')).toBe('');
    expect(csvCell(null)).toBe('');
  });

  it.each([
    ['=1+2', "'=1+2"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tTAB', "'\tTAB"],
    ['\rCR', `"'\rCR"`],
  ])('defuses %j, which a spreadsheet would run as a formula', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('leaves a formula character alone when it does not start the cell', () => {
    expect(csvCell('a=b+c-d@e')).toBe('a=b+c-d@e');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });
});
