// The bearer token of this browser's session. Kept in localStorage so every tab shares it; the
// strict Content-Security-Policy (no inline or foreign script) is what keeps it from other code.
const KEY = 'tdg.token';

type Listener = (token: string | null) => void;
const listeners = new Set<Listener>();

export function getToken(): string | null {
  return window.localStorage.getItem(KEY);
}

export function setToken(token: string | null): void {
  if (token) window.localStorage.setItem(KEY, token);
  else window.localStorage.removeItem(KEY);
  listeners.forEach((l) => l(token));
}

export function onTokenChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

window.addEventListener('storage', (event) => {
  if (event.key === KEY) listeners.forEach((l) => l(event.newValue));
});
