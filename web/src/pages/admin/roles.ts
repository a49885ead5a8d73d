// Which tenant roles the caller may grant: none above their own, SuperUser only by a SuperUser
// (app/core/authz.py can_grant). The server enforces the same rule.
import { ROLE_ORDER } from '../../auth/SessionProvider';
import type { Role } from '../../gql/graphql';

export function roleRank(role: Role | string): number {
  return ROLE_ORDER.indexOf(role as Role);
}

export function grantableRoles(mine: Role | undefined): Role[] {
  if (!mine) return [];
  return ROLE_ORDER.filter((role) => (role === 'SuperUser' ? mine === 'SuperUser' : roleRank(role) <= roleRank(mine)));
}

export const ROLE_OPTIONS = ROLE_ORDER.map((role) => ({ value: role, label: role }));
