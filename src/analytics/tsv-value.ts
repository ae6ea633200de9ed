/**
 * A value as a TabSeparated field: NULL as \N; a backslash, tab, line feed, carriage return or NUL
 * escaped with a backslash (ClickHouse reads them back as they were); everything else as it is.
 */
export function tsvValue(value: string | null): string {
  if (value === null) return '\\N';
  return TSV_SPECIAL.test(value) ? value.replace(TSV_ESCAPES, (c) => TSV_ESCAPED[c]) : value;
}

const TSV_SPECIAL = /[\\\t\n\r\0]/;
const TSV_ESCAPES = /[\\\t\n\r\0]/g;
const TSV_ESCAPED: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
};
