/**
 * Pure: CF time coordinates (CF §4.4): "<unit> since <date>" in the standard/gregorian (after 1582-10-15),
 * proleptic_gregorian, noleap/365_day, all_leap/366_day and 360_day calendars, to and from ISO 8601 text
 * (non-standard calendars as the calendar's own date, 2001-02-30 in 360_day). Times go through a day
 * number of each calendar, so a date is compared with the axis in the axis's own calendar.
 */
import { ZonalError } from '../errors.ts';

type Calendar = 'proleptic_gregorian' | 'standard' | 'noleap' | 'all_leap' | '360_day';

const CALENDARS: Record<string, Calendar> = {
  standard: 'standard',
  gregorian: 'standard',
  proleptic_gregorian: 'proleptic_gregorian',
  noleap: 'noleap',
  '365_day': 'noleap',
  all_leap: 'all_leap',
  '366_day': 'all_leap',
  '360_day': '360_day',
};

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  seconds: 1,
  sec: 1,
  secs: 1,
  s: 1,
  minute: 60,
  minutes: 60,
  min: 60,
  mins: 60,
  hour: 3600,
  hours: 3600,
  hr: 3600,
  hrs: 3600,
  h: 3600,
  day: 86400,
  days: 86400,
  d: 86400,
};

/** A date's fields in some calendar. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
  /** Seconds into the day. */
  seconds: number;
}

/** A time axis: its calendar, the length of its unit in seconds, and its reference date's day number and seconds. */
export interface TimeAxis {
  calendar: Calendar;
  unitSeconds: number;
  refDay: number;
  refSeconds: number;
}

const CUM = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
const CUM_LEAP = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];
const MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function gregorianDay(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function gregorianDate(z: number): [number, number, number] {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Whether the fields name a day of the calendar (2001-02-30 is one in 360_day, not in noleap). */
function validDay(cal: Calendar, y: number, m: number, d: number): boolean {
  if (!Number.isInteger(y) || m < 1 || m > 12 || d < 1) return false;
  if (cal === '360_day') return d <= 30;
  if (cal === 'all_leap') return d <= (m === 2 ? 29 : (MONTH[m - 1] as number));
  if (cal === 'noleap') return d <= (MONTH[m - 1] as number);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (m === 2 && leap ? 29 : (MONTH[m - 1] as number));
}

/** The day number of a date in its calendar (days since that calendar's year 0, or 1970 for the Gregorian ones). */
function dayNumber(cal: Calendar, y: number, m: number, d: number): number {
  switch (cal) {
    case 'noleap':
      return y * 365 + (CUM[m - 1] as number) + d - 1;
    case 'all_leap':
      return y * 366 + (CUM_LEAP[m - 1] as number) + d - 1;
    case '360_day':
      return y * 360 + (m - 1) * 30 + d - 1;
    default:
      return gregorianDay(y, m, d);
  }
}

function dateOfDay(cal: Calendar, n: number): [number, number, number] {
  const monthOf = (doy: number, cum: readonly number[]): [number, number] => {
    let m = 11;
    while (m > 0 && (cum[m] as number) > doy) m--;
    return [m + 1, doy - (cum[m] as number) + 1];
  };
  switch (cal) {
    case 'noleap': {
      const y = Math.floor(n / 365);
      return [y, ...monthOf(n - y * 365, CUM)];
    }
    case 'all_leap': {
      const y = Math.floor(n / 366);
      return [y, ...monthOf(n - y * 366, CUM_LEAP)];
    }
    case '360_day': {
      const y = Math.floor(n / 360);
      const r = n - y * 360;
      return [y, Math.floor(r / 30) + 1, (r % 30) + 1];
    }
    default:
      return gregorianDate(n);
  }
}

const DATE = /^\s*(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[T\s](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|[+-]00:?00)?\s*$/i;

/** ISO 8601 (or CF's "1900-1-1 0:0:0") date text as calendar fields; null when it is not one (or not UTC). */
export function parseDate(text: string): (CalendarDate & { dateOnly: boolean }) | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const seconds = Number(m[4] ?? 0) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0);
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), seconds, dateOnly: m[4] === undefined };
}

function refuseTime(dim: string, why: string): ZonalError {
  return new ZonalError('unsupported_calendar', `The time axis "${dim}" cannot be read: ${why}.`);
}

/** The time axis of CF `units` and `calendar` attributes, or null when the units are not "<unit> since <date>". */
export function timeAxis(dim: string, units: unknown, calendar: unknown): TimeAxis | null {
  if (typeof units !== 'string') return null;
  const m = /^\s*(\w+)\s+since\s+(.+)$/i.exec(units);
  if (!m) return null;
  const unitSeconds = UNIT_SECONDS[(m[1] as string).toLowerCase()];
  if (unitSeconds === undefined) {
    throw refuseTime(dim, `its unit "${m[1]}" is not seconds, minutes, hours or days (months and years have no fixed length in CF)`);
  }
  const name = typeof calendar === 'string' ? calendar.toLowerCase() : 'standard';
  const cal = CALENDARS[name];
  if (cal === undefined) {
    throw refuseTime(dim, `its calendar "${name}" is not one of standard, gregorian, proleptic_gregorian, noleap, 365_day, all_leap, 366_day, 360_day`);
  }
  const ref = parseDate(m[2] as string);
  if (ref === null || !validDay(cal, ref.year, ref.month, ref.day)) throw refuseTime(dim, `its reference date "${m[2]}" is not a date`);
  if (cal === 'standard' && gregorianDay(ref.year, ref.month, ref.day) < gregorianDay(1582, 10, 15)) {
    throw refuseTime(dim, 'its reference date lies before 1582-10-15, where the standard calendar is Julian');
  }
  return { calendar: cal, unitSeconds, refDay: dayNumber(cal, ref.year, ref.month, ref.day), refSeconds: ref.seconds };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** A coordinate of the axis as ISO 8601 text: `Z` on the Gregorian calendars, the calendar's own date elsewhere. */
export function formatTime(axis: TimeAxis, value: number): string {
  const total = axis.refSeconds + value * axis.unitSeconds;
  let day = axis.refDay + Math.floor(total / 86400);
  let secs = Math.round((total - Math.floor(total / 86400) * 86400) * 1000) / 1000;
  if (secs >= 86400) {
    secs -= 86400;
    day += 1;
  }
  const [y, mo, d] = dateOfDay(axis.calendar, day);
  const whole = Math.floor(secs);
  const frac = secs - whole;
  const clock = `${pad(Math.floor(whole / 3600))}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}${frac > 0 ? `.${pad(Math.round(frac * 1000), 3)}` : ''}`;
  const gregorian = axis.calendar === 'standard' || axis.calendar === 'proleptic_gregorian';
  const year = y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
  return `${year}-${pad(mo)}-${pad(d)}T${clock}${gregorian ? 'Z' : ''}`;
}

/** A date of the request as a value of the axis (its units since its reference), or null when it is not a date of the axis's calendar. */
export function timeValue(axis: TimeAxis, date: CalendarDate): number | null {
  if (!validDay(axis.calendar, date.year, date.month, date.day)) return null;
  const days = dayNumber(axis.calendar, date.year, date.month, date.day) - axis.refDay;
  return (days * 86400 + date.seconds - axis.refSeconds) / axis.unitSeconds;
}
