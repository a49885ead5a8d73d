// The Projects menu (`g p`): a searchable list of the caller's projects, searched on the server.
import { Spotlight, spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { IconFolder, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../gql';

const ProjectsMenuQuery = graphql(`
  query ProjectsMenu($q: String) {
    projects(q: $q, limit: 20) { total items { project_id name description tags } }
  }
`);

export const openProjectsMenu = spotlight.open;

/** Focus leaves the search field as soon as the menu starts closing: until its transition ends the
 *  field kept focus, and a shortcut typed then (Esc, then `?` at typing speed) went into the field
 *  (the shortcuts ignore keys typed into fields) and was lost. */
function releaseFocus(): void {
  const focused = document.activeElement;
  if (focused instanceof HTMLElement && focused.closest('[role="dialog"]')) focused.blur();
}

export function ProjectsSpotlight() {
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [{ data }] = useQuery({ query: ProjectsMenuQuery, variables: { q: query || null } });
  const actions: SpotlightActionData[] = [
    ...(data?.projects.items ?? []).map((p) => ({
      id: `project-${p.project_id}`,
      label: p.name,
      description: [p.description, p.tags.length ? `Tags: ${p.tags.join(', ')}` : ''].filter(Boolean).join(' · ') || undefined,
      leftSection: <IconFolder size={18} aria-hidden />,
      onClick: () => navigate(`/projects/${p.project_id}`),
    })),
    { id: 'all-projects', label: 'All projects', description: 'Open the projects list', onClick: () => navigate('/projects') },
  ];
  return (
    <Spotlight
      actions={actions}
      query={query}
      onQueryChange={setQuery}
      filter={(_q, a) => a}
      nothingFound="No project matches"
      shortcut={null}
      title="Projects menu"
      onSpotlightClose={releaseFocus}
      searchProps={{ leftSection: <IconSearch size={18} aria-hidden />, placeholder: 'Search projects…', 'aria-label': 'Search projects' }}
      scrollable
      maxHeight={400}
    />
  );
}
