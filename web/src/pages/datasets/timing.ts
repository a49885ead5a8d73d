// How long a dataset took, and how long a running one has left (from its progress so far).
function parse(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso.endsWith('Z') || /[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(t) ? null : t;
}

export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Started to finished (or to now, while it runs). */
export function durationMs(startedAt: string | null | undefined, finishedAt: string | null | undefined, now: number): number | null {
  const start = parse(startedAt);
  if (start == null) return null;
  return (parse(finishedAt) ?? now) - start;
}

/** The time left at the pace so far; null until there is a pace to go by. */
export function etaMs(startedAt: string | null | undefined, progress: number, now: number): number | null {
  const start = parse(startedAt);
  if (start == null || progress < 0.01 || progress >= 1) return null;
  const elapsed = now - start;
  return elapsed > 0 ? (elapsed * (1 - progress)) / progress : null;
}
