// The spec's keyboard shortcuts, in one table the help dialog lists and the key handler binds.
export interface Shortcut {
  keys: string; // tinykeys syntax
  label: string; // as shown in the help dialog
  description: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: 'g d', label: 'g d', description: 'Go to Dashboard' },
  { keys: 'g p', label: 'g p', description: 'Open the Projects menu' },
  { keys: 'g l', label: 'g l', description: 'Go to Library' },
  { keys: 'g i', label: 'g i', description: 'Go to Integrations' },
  { keys: 'g a', label: 'g a', description: 'Go to Analytics' },
  { keys: '[Shift]+?', label: '?', description: 'Show keyboard shortcuts' },
  { keys: 'Escape', label: 'Esc', description: 'Close a modal or dialog' },
];
