// The flag on a schema no record can be generated from (satisfiable false), or one too large to
// check at upload (satisfiable null); nothing when records can be generated.
import { Badge, VisuallyHidden } from '@mantine/core';
import { IconAlertTriangle, IconHelpCircle } from '@tabler/icons-react';

export function SatisfiableBadge({ satisfiable }: { satisfiable: boolean | null | undefined }) {
  if (satisfiable === true || satisfiable === undefined) return null;
  if (satisfiable === false) {
    return (
      <Badge color="red.8" variant="filled" tt="none" size="sm" leftSection={<IconAlertTriangle size={12} aria-hidden />}>
        Unsatisfiable<VisuallyHidden>: no record of its default root can be generated</VisuallyHidden>
      </Badge>
    );
  }
  return (
    <Badge color="gray.8" variant="outline" tt="none" size="sm" leftSection={<IconHelpCircle size={12} aria-hidden />}>
      Not checked<VisuallyHidden>: too large to check at upload whether records can be generated</VisuallyHidden>
    </Badge>
  );
}
