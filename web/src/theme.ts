import { Drawer, Modal, Notification, createTheme, type CSSVariablesResolver } from '@mantine/core';

// System font stack only: nothing is fetched from outside the app.
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 }, // white on blue.8 is 5:1 (blue.6 is 3.6:1)
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  components: {
    // the close buttons are icons: give every one a name
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    // a toast's description is gray.6 (3.3:1) when it has a title: the AA dimmed grey instead
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      styles: { description: { color: 'var(--mantine-color-dimmed)' } },
    }),
  },
});

// Mantine's default dimmed grey (gray.6 on white, 3.3:1) fails WCAG AA for small text; gray.7 passes.
// The same holds for coloured text, and for the text of light, subtle and outline buttons and
// badges (shade 6 by default): shade 9 passes on white and on the light variants' tints.
const TEXT_COLORS = ['blue', 'red', 'green', 'teal', 'orange', 'grape', 'violet', 'indigo', 'cyan', 'pink', 'lime', 'gray'];

function readableTextVariables(t: Parameters<CSSVariablesResolver>[0]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const name of TEXT_COLORS) {
    const shade = t.colors[name]?.[9];
    if (!shade) continue;
    vars[`--mantine-color-${name}-text`] = shade;
    vars[`--mantine-color-${name}-light-color`] = shade;
    vars[`--mantine-color-${name}-outline`] = shade;
  }
  return vars;
}

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  // red.6 error text is 3.3:1 on white; red.9 passes
  light: {
    ...readableTextVariables(t),
    '--mantine-color-dimmed': t.colors.gray[7] ?? '#495057',
    '--mantine-color-error': t.colors.red[9] ?? '#c92a2a',
    '--mantine-color-anchor': t.colors.blue[9] ?? '#1864ab',
  },
  dark: { '--mantine-color-dimmed': t.colors.dark[1] ?? '#b8b8b8' },
});
