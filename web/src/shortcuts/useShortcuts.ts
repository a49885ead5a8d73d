import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { tinykeys } from 'tinykeys';
import { openProjectsMenu } from './ProjectsSpotlight';

/** Binds the shortcuts on window; tinykeys ignores keys typed into fields. Esc is the modals' own. */
export function useShortcuts(openHelp: () => void): void {
  const navigate = useNavigate();
  useEffect(
    () =>
      tinykeys(window, {
        'g d': () => navigate('/'),
        'g p': () => openProjectsMenu(),
        'g l': () => navigate('/library'),
        'g i': () => navigate('/integrations'),
        'g a': () => navigate('/analytics'),
        '[Shift]+?': (event) => {
          event.preventDefault();
          openHelp();
        },
      }),
    [navigate, openHelp],
  );
}
