// The signed-in user and what they may do, read once per session from `me` and `permissions`.
// The server stays the only enforcer: this only decides which actions are offered.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useClient, useQuery } from 'urql';
import { resetRealtime } from '../api/client';
import { getToken, onTokenChange, setToken } from '../api/session';
import { graphql } from '../gql';
import type { Role } from '../gql/graphql';

const SessionQuery = graphql(`
  query Session {
    me { id username display_name email role tenant_id theme locale two_factor_enabled }
    settings { avatar_url }
    permissions
  }
`);

const LogoutMutation = graphql(`
  mutation Logout { logout { ok } }
`);

export const ROLE_ORDER: Role[] = ['Tester', 'Manager', 'Admin', 'SuperUser'];
export const PROJECT_ROLE_ORDER = ['view', 'edit', 'owner'] as const;
export type ProjectRoleName = (typeof PROJECT_ROLE_ORDER)[number];

interface PermissionRow {
  action: string;
  min_role: Role;
  min_project_role?: ProjectRoleName;
}

export interface SessionUser {
  id: number;
  username: string;
  display_name?: string | null;
  email?: string | null;
  role: Role;
  tenant_id: number;
  theme: string;
  locale: string;
  two_factor_enabled: boolean;
  avatar_url: string | null;
}

interface Session {
  token: string | null;
  user: SessionUser | null;
  loading: boolean;
  /** May the caller take `action` (optionally on a project where their role is `projectRole`)? */
  can: (action: string, projectRole?: string | null) => boolean;
  signIn: (token: string) => void;
  signOut: () => Promise<void>;
  refresh: () => void;
}

const SessionContext = createContext<Session | null>(null);

function rank<T>(order: readonly T[], value: T | null | undefined): number {
  return value == null ? -1 : order.indexOf(value);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useClient();
  const [token, setTokenState] = useState<string | null>(getToken);
  useEffect(() => onTokenChange(setTokenState), []);
  const [{ data, fetching }, reexecute] = useQuery({ query: SessionQuery, pause: !token, requestPolicy: 'network-only' });

  const table = useMemo(() => {
    const rows = (Array.isArray(data?.permissions) ? data.permissions : []) as PermissionRow[];
    return new Map(rows.map((r) => [r.action, r]));
  }, [data]);

  const user = useMemo<SessionUser | null>(
    () => (token && data?.me ? { ...data.me, avatar_url: data.settings.avatar_url ?? null } : null),
    [token, data],
  );

  const can = useCallback(
    (action: string, projectRole?: string | null) => {
      const row = table.get(action);
      if (!user || !row) return false;
      if (rank(ROLE_ORDER, user.role) < rank(ROLE_ORDER, row.min_role)) return false;
      if (row.min_project_role && projectRole !== undefined) {
        return rank(PROJECT_ROLE_ORDER, projectRole as ProjectRoleName) >= rank(PROJECT_ROLE_ORDER, row.min_project_role);
      }
      return true;
    },
    [table, user],
  );

  const signIn = useCallback((next: string) => {
    resetRealtime();
    setToken(next);
  }, []);

  const signOut = useCallback(async () => {
    await client.mutation(LogoutMutation, {}).toPromise();
    resetRealtime();
    setToken(null);
  }, [client]);

  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);

  const value = useMemo<Session>(
    () => ({ token, user, loading: !!token && fetching && !data, can, signIn, signOut, refresh }),
    [token, user, fetching, data, can, signIn, signOut, refresh],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
