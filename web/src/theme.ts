import { Drawer, Modal, createTheme, type CSSVariablesResolver } from '@mantine/core';

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
  },
});

// Mantine's default dimmed grey (gray.6 on white, 3.3:1) fails WCAG AA for small text; gray.7 passes.
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  // red.6 error text is 3.3:1 on white; red.9 passes
  light: { '--mantine-color-dimmed': t.colors.gray[7] ?? '#495057', '--mantine-color-error': t.colors.red[9] ?? '#c92a2a' },
  dark: { '--mantine-color-dimmed': t.colors.dark[1] ?? '#b8b8b8' },
});
