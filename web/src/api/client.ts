// One urql client for queries, mutations and subscriptions (graphql-transport-ws), with the
// session token attached and session expiry sending the user back to Log in.
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from 'urql';
import { reportConnection } from './connection';
import { getToken, setToken } from './session';

let ws: WsClient | null = null;

function wsClient(): WsClient {
  if (!ws) {
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    ws = createWsClient({
      url: `${scheme}://${window.location.host}/graphql`,
      lazy: true,
      retryAttempts: 5,
      connectionParams: () => {
        const token = getToken();
        return token ? { authorization: `Bearer ${token}` } : {};
      },
      on: {
        connected: () => reportConnection(true),
        closed: (event) => {
          // 1000 is a normal close (lazy socket idle); anything else while online means trouble
          const code = (event as CloseEvent | undefined)?.code;
          if (code !== undefined && code !== 1000 && code !== 4401 && code !== 4403) reportConnection(false);
        },
      },
    });
  }
  return ws;
}

export function resetRealtime(): void {
  ws?.dispose();
  ws = null;
}

/** Where the user goes when their session ends: Log in, then back to the page they were on. */
export function sendToLogin(): void {
  const here = window.location.pathname + window.location.search;
  setToken(null);
  resetRealtime();
  if (!window.location.pathname.startsWith('/login')) {
    const next = here === '/' ? '' : `?next=${encodeURIComponent(here)}`;
    window.history.pushState(null, '', `/login${next}`);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }
}

async function trackedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  try {
    const response = await fetch(input, init);
    reportConnection(true);
    return response;
  } catch (err) {
    reportConnection(false);
    throw err;
  }
}

export function createClient(): Client {
  return new Client({
    url: '/graphql',
    fetch: trackedFetch,
    requestPolicy: 'cache-and-network',
    fetchOptions: (): RequestInit => {
      const token = getToken();
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      return { headers };
    },
    exchanges: [
      mapExchange({
        onError(error) {
          const unauthenticated = error.graphQLErrors.some((e) => e.extensions?.status === 401);
          if (unauthenticated && getToken()) sendToLogin();
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return {
            subscribe(sink) {
              const unsubscribe = wsClient().subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
}
