/**
 * Numbers as people read them, without ICU (`Intl` loads its data on first use, costly). Pure.
 *
 * @module
 */

/** A whole count with `,` between thousands: `1,234,567`; `-1,234`. Never throws. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const whole = Math.trunc(n);
  const out = String(Math.abs(whole)).replace(/\B(?=(\d{3})+$)/g, ",");
  return whole < 0 ? `-${out}` : out;
}

/** A moment (or ISO string) as `2026-11-27 07:40:00 UTC`; a string that is no date as it is. */
export function formatUtc(at: Date | string): string {
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return String(at);
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Milliseconds as seconds for people: `0.3s`, `58s`, `1.25s`. Never throws. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))}s`;
}

/** US dollars: `$0.0144` below a dollar, `<$0.0001`, `$1,234.57`, `$0.00`; half up. Never throws. */
export function formatUsd(dollars: number): string {
  if (!Number.isFinite(dollars)) return `$${dollars}`;
  const sign = dollars < 0 ? "-" : "";
  const amount = Math.abs(dollars);
  if (amount === 0) return "$0.00";
  const tenThousandths = Math.round(amount * 10_000);
  if (tenThousandths === 0) return `${sign}<$0.0001`;
  if (tenThousandths < 10_000) return `${sign}$0.${String(tenThousandths).padStart(4, "0")}`;
  const cents = Math.round(amount * 100);
  return `${sign}$${formatCount(Math.floor(cents / 100))}.${String(cents % 100).padStart(2, "0")}`;
}
