// Accessible names for Mantine Pagination's icon controls ("Next page", ...).
export function pagerControlProps(control: 'first' | 'previous' | 'last' | 'next'): Record<string, string> {
  return { 'aria-label': `${control.charAt(0).toUpperCase()}${control.slice(1)} page` };
}
