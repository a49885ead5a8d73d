// The actions of one dataset row: download (completed), start (queued), delete or cancel, and the
// failure reason of a failed dataset. Start, cancel and delete are offered as the dataset's
// `viewer_can` says (its creator, the project's owners, Managers and up); the server still decides.
import { Button, Group, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconPlayerPlay, IconPlayerStop, IconTrash } from '@tabler/icons-react';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { graphql } from '../../gql';
import type { LiveDataset } from './datasetFields';
import { DownloadMenu } from './DownloadMenu';

const StartDatasetMutation = graphql(`
  mutation StartDataset($dataset_id: Int!) { start_dataset(dataset_id: $dataset_id) { dataset_id status } }
`);

const DeleteDatasetMutation = graphql(`
  mutation DeleteDataset($dataset_id: Int!) { delete_dataset(dataset_id: $dataset_id) { dataset_id status } }
`);

interface Props {
  dataset: LiveDataset;
  /** Offer start, cancel and delete here at all (each still only where `viewer_can` allows it)? */
  manageable: boolean;
  onChanged: () => void;
  /** Leave the failure reason out (a page that shows it in full). */
  hideError?: boolean;
}

export function DatasetActions({ dataset, manageable, onChanged, hideError = false }: Props) {
  const [startState, start] = useMutation(StartDatasetMutation);
  const [, remove] = useMutation(DeleteDatasetMutation);
  const running = dataset.status === 'queued' || dataset.status === 'running';
  const mayStart = manageable && dataset.status === 'queued' && dataset.viewer_can.start;
  const mayRemove = manageable && (running ? dataset.viewer_can.cancel : dataset.viewer_can.delete);

  const fail = (title: string, error: Parameters<typeof errorDetail>[0]) =>
    notifications.show({ color: 'red', title, message: errorDetail(error) ?? 'Something went wrong.' });

  const onStart = async () => {
    const result = await start({ dataset_id: dataset.dataset_id });
    if (result.error) fail('Could not start the dataset', result.error);
    onChanged();
  };

  const confirmDelete = () =>
    modals.openConfirmModal({
      title: running ? `Cancel dataset "${dataset.name}"?` : `Delete dataset "${dataset.name}"?`,
      children: (
        <Text size="sm">
          {running
            ? 'Generation stops and the files written so far are removed. The dataset stays listed as cancelled.'
            : 'The dataset and its files are removed. This cannot be undone.'}
        </Text>
      ),
      labels: { confirm: running ? 'Cancel dataset' : 'Delete dataset', cancel: running ? 'Keep running' : 'Keep' },
      confirmProps: { color: 'red.9' },
      closeButtonProps: { 'aria-label': 'Close' },
      onConfirm: async () => {
        const result = await remove({ dataset_id: dataset.dataset_id });
        if (result.error) fail(running ? 'Could not cancel the dataset' : 'Could not delete the dataset', result.error);
        else notifications.show({ color: 'green', message: running ? `Dataset "${dataset.name}" cancelled.` : `Dataset "${dataset.name}" deleted.` });
        onChanged();
      },
    });

  return (
    <Group gap={6} wrap="wrap" justify="flex-end">
      {dataset.status === 'failed' && dataset.error && !hideError && (
        <Text size="xs" c="red.9" maw={240} lineClamp={2} title={dataset.error}>{dataset.error}</Text>
      )}
      {dataset.status === 'completed' && <DownloadMenu dataset={dataset} />}
      {mayStart && (
        <Button size="xs" variant="default" loading={startState.fetching} onClick={onStart}
          aria-label={`Start dataset ${dataset.name}`}
          leftSection={<IconPlayerPlay size={14} aria-hidden />}>
          Start
        </Button>
      )}
      {mayRemove && (
        <Button size="xs" variant="subtle" color="red" c="red.9" onClick={confirmDelete}
          leftSection={running ? <IconPlayerStop size={14} aria-hidden /> : <IconTrash size={14} aria-hidden />}
          aria-label={`${running ? 'Cancel' : 'Delete'} dataset ${dataset.name}`}>
          {running ? 'Cancel' : 'Delete'}
        </Button>
      )}
    </Group>
  );
}
