// Text formats of the exports (web/export/files.js): escaped XML/HTML text, CSV (RFC 4180, with
// the core's rule against spreadsheet formulas) and JSON with undefined numbers as null. Pure
// functions, tested in node on exactly what a user downloads.
import { SCHEMA } from '../generated/schema.js';

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF. */
export function csvField(x) {
  if (x === null || x === undefined || (typeof x === 'number' && Number.isNaN(x))) return '';
  const s = typeof x === 'number' ? String(x) : String(x);
  // A leading = + - @, tab or CR would make a spreadsheet run the token as a formula: the core's
  // rule (text.hpp kCsvFormulaStart, through `attn schema`), the one `attn analyze` applies too.
  const safe = typeof x === 'string' && s !== '' && SCHEMA.csv.formulaStart.includes(s[0]) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows of fields to CSV text (CRLF line ends as RFC 4180 says). */
export function toCsv(header, rows) {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** JSON where NaN/Infinity (undefined metrics) become null, typed arrays become arrays. */
export function toJson(value) {
  return (
    JSON.stringify(
      value,
      (_, v) => {
        if (typeof v === 'number' && !Number.isFinite(v)) return null;
        if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (Number.isFinite(x) ? x : null));
        return v;
      },
      2,
    ) + '\n'
  );
}
