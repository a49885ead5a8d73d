// A chart in a card with its h2 and, when given a summary, the same numbers as a visually hidden
// table: what screen readers get instead of the drawing (which is then hidden from them).
import { Box, Card, Text, Title, VisuallyHidden } from '@mantine/core';
import { useId, type ReactNode } from 'react';

export interface Summary {
  caption: string;
  columns: string[];
  rows: (string | number)[][];
}

interface Props {
  title: string;
  description?: string;
  summary?: Summary;
  /** Shown instead of the chart when there is nothing to draw. */
  empty?: string | null;
  children: ReactNode;
}

export function ChartCard({ title, description, summary, empty, children }: Props) {
  const id = useId();
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby={id} h="100%">
      <Title order={2} size="h4" id={id}>{title}</Title>
      {description && <Text size="sm" c="dimmed" mb="sm">{description}</Text>}
      {empty ? (
        <Text size="sm" c="dimmed" py="xl" ta="center">{empty}</Text>
      ) : (
        <>
          <Box aria-hidden={summary ? true : undefined} mt="sm">{children}</Box>
          {summary && (
            <VisuallyHidden>
              <table>
                <caption>{summary.caption}</caption>
                <thead>
                  <tr>{summary.columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
                </thead>
                <tbody>
                  {summary.rows.map((row, i) => (
                    <tr key={i}>{row.map((cell, j) => (j === 0 ? <th key={j} scope="row">{cell}</th> : <td key={j}>{cell}</td>))}</tr>
                  ))}
                </tbody>
              </table>
            </VisuallyHidden>
          )}
        </>
      )}
    </Card>
  );
}
