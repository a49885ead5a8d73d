// Whether the server answers: a failed fetch or a dropped socket turns the banner on, the next answer off.
import { useSyncExternalStore } from 'react';

let online = true;
const listeners = new Set<() => void>();

export function reportConnection(ok: boolean): void {
  if (ok === online) return;
  online = ok;
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useServerReachable(): boolean {
  return useSyncExternalStore(subscribe, () => online);
}

window.addEventListener('offline', () => reportConnection(false));
