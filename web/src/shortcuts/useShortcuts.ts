import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { tinykeys } from 'tinykeys';
import { openProjectsMenu } from './ProjectsSpotlight';

/** Binds the shortcuts on window; tinykeys ignores keys typed into fields. Esc is the modals' own. */
export function useShortcuts(openHelp: () => void): void {
  const navigate = useNavigate();
  useEffect(() => {
    const bindings: Record<string, (event: KeyboardEvent) => void> = {
      'g d': () => navigate('/'),
      'g p': () => openProjectsMenu(),
      'g l': () => navigate('/library'),
      'g i': () => navigate('/integrations'),
      'g a': () => navigate('/analytics'),
      '[Shift]+?': (event) => {
        event.preventDefault();
        openHelp();
      },
    };
    // one handler per sequence: a shared tinykeys handler stops at the first sequence that fires and
    // leaves the others half-matched, so `g d` then `g l` within its 1 s timeout did nothing
    const unbind = Object.entries(bindings).map(([keys, handler]) => tinykeys(window, { [keys]: handler }));
    return () => unbind.forEach((off) => off());
  }, [navigate, openHelp]);
}
