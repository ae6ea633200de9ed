/** The second chTime formatted last ('YYYY-MM-DD hh:mm:ss'): a batch's clicks mostly share their second. */
let formattedSecond = NaN;
let formattedPrefix = '';

/** A DateTime64(3, 'UTC') parameter or column value: 'YYYY-MM-DD hh:mm:ss.sss'. */
export function chTime(date: Date | number): string {
  const ms = Math.floor(typeof date === 'number' ? date : date.getTime());
  const second = Math.floor(ms / 1000);
  if (second !== formattedSecond) {
    // Throws RangeError for an invalid date, as toISOString does.
    formattedPrefix = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
    formattedSecond = second;
  }
  const millis = ms - second * 1000;
  return `${formattedPrefix}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/** A DateTime or DateTime64 value as ClickHouse writes it in JSON ('YYYY-MM-DD hh:mm:ss[.sss]', UTC). */
export function fromChTime(value: string): Date {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : `${value.replace(' ', 'T')}Z`);
}
