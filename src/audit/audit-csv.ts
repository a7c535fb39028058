import type { AuditEventDto } from './dto/audit-event.dto';

/** The export's columns, in order: the list's fields, `details` as JSON text. */
export const AUDIT_CSV_COLUMNS = [
  'createdAt',
  'action',
  'actorId',
  'actorEmail',
  'actorName',
  'ip',
  'targetType',
  'targetId',
  'targetName',
  'requestId',
  'details',
] as const satisfies ReadonlyArray<keyof AuditEventDto>;

/**
 * A spreadsheet reads a cell starting with one of these as a formula (CSV injection, OWASP): such a
 * cell gets a leading `'`, which spreadsheets show as text and never evaluate.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell of RFC 4180 CSV: null is empty, a formula-like text is defused, quotes where needed. */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const line = (cells: ReadonlyArray<string | null>) => `${cells.map(csvCell).join(',')}\r\n`;

export const AUDIT_CSV_HEADER = line(AUDIT_CSV_COLUMNS);

export function auditCsvLine(event: AuditEventDto): string {
  return line(
    AUDIT_CSV_COLUMNS.map((column) => {
      const value = event[column];
      return column === 'details' ? (value === null ? null : JSON.stringify(value)) : (value as string | null);
    }),
  );
}
