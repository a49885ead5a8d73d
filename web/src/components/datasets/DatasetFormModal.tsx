// The new-dataset form in a modal (full screen on phones).
import { Modal } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { DatasetForm, type CreatedDataset } from './DatasetForm';

interface Props {
  opened: boolean;
  onClose: () => void;
  projectId: number | null;
  onCreated: (dataset: CreatedDataset) => void;
}

export function DatasetFormModal({ opened, onClose, projectId, onCreated }: Props) {
  const phone = useMediaQuery('(max-width: 36em)');
  return (
    <Modal opened={opened} onClose={onClose} title="New dataset" size="xl" fullScreen={phone}
      closeButtonProps={{ 'aria-label': 'Close' }}>
      {opened && <DatasetForm projectId={projectId} onCancel={onClose} onCreated={onCreated} />}
    </Modal>
  );
}
