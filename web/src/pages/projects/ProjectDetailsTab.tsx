// The project's name, description, tags, the caller's role and dates.
import { Badge, Box, Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatWhen } from '../../components/format';
import type { ProjectQuery } from '../../gql/graphql';

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <Text component="dt" size="sm" c="dimmed" fw={500}>{term}</Text>
      <Text component="dd" size="sm" m={0}>{children}</Text>
    </>
  );
}

export function ProjectDetailsTab({ project }: { project: ProjectQuery['project'] }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Box component="dl" m={0}
          style={{ display: 'grid', gridTemplateColumns: 'minmax(7rem, max-content) 1fr', gap: 'var(--mantine-spacing-sm) var(--mantine-spacing-lg)' }}>
          <Row term="Name">{project.name}</Row>
          <Row term="Description">
            <span style={{ whiteSpace: 'pre-line' }}>{project.description || '—'}</span>
          </Row>
          <Row term="Tags">
            {project.tags.length ? (
              <Group gap={4} component="span">{project.tags.map((t) => <Badge key={t} variant="light" tt="none">{t}</Badge>)}</Group>
            ) : '—'}
          </Row>
          <Row term="Your project role">{project.my_role}</Row>
          <Row term="Created">{formatWhen(project.created_at)}</Row>
          <Row term="Updated">{formatWhen(project.updated_at)}</Row>
          <Row term="Project id">{project.project_id}</Row>
        </Box>
      </Stack>
    </Paper>
  );
}
