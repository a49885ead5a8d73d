import { PROJECT_ROLE_ORDER } from '../../auth/SessionProvider';

export const ROLE_OPTIONS = PROJECT_ROLE_ORDER.map((r) => ({ value: r, label: r }));
