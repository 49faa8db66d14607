// How the page writes numbers, durations and times. Pure; shared by every component.

/** An uptime or an age: "3 d 4 h", "2 h 5 m", "12 m 5 s", "42 s". */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} m`;
  if (minutes > 0) return `${minutes} m ${rest} s`;
  return `${rest} s`;
}

/** A short time in seconds (latency, lag): "0.42 ms", "12.3 ms", "1.25 s", "3 m 5 s". */
export function formatSeconds(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds === 0) return '0 s';
  if (seconds < 0.001) return `${(seconds * 1000).toFixed(2)} ms`;
  if (seconds < 1) return `${(seconds * 1000).toFixed(seconds < 0.1 ? 1 : 0)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  return formatDuration(seconds);
}

export function formatCount(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return Math.round(value).toLocaleString('en-US');
}

/** Bytes in binary units: "512 B", "1.5 KiB", "50.0 MiB", "2.31 GiB". */
export function formatBytes(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = Math.max(0, value);
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(scaled)} B` : `${scaled.toFixed(scaled < 10 ? 2 : 1)} ${units[unit]}`;
}

/** A clock time, "14:05:09", in the viewer's time zone. */
export function formatClock(ms: number): string {
  return new Date(ms).toLocaleTimeString('en-GB', { hour12: false });
}

/** "5 s ago", "3 m ago". */
export function formatAgo(ms: number, now: number): string {
  return `${formatDuration(Math.max(0, (now - ms) / 1000))} ago`;
}

/** A value for a chart axis or tooltip, by the chart's unit. */
export function formatValue(value: number, unit: 's' | 'short'): string {
  return unit === 's' ? formatSeconds(value) : formatCount(value);
}
