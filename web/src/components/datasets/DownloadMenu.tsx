// Download a completed dataset: one item per format (and per file when records_per_file split it).
// The server signs a short-lived link; the browser then downloads it natively (no blob in memory,
// so a multi-gigabyte dataset streams straight to disk).
import { Button, Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconChevronDown, IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { type CombinedError, useMutation } from 'urql';
import { errorCode, errorDetail } from '../../api/errors';
import { graphql } from '../../gql';
import { formatBytes } from '../format';
import { FORMATS, formatLabel, type LiveDataset } from './datasetFields';

const CreateDownloadLinkMutation = graphql(`
  mutation CreateDownloadLink($dataset_id: Int!, $format: String!, $file_index: Int!) {
    create_download_link(dataset_id: $dataset_id, format: $format, file_index: $file_index) { url expires_at }
  }
`);

interface Item {
  format: string;
  fileIndex: number;
  label: string;
  size?: number;
}

/** Every format can be downloaded (the server renders the ones not pre-generated); split formats list each file. */
export function downloadItems(dataset: Pick<LiveDataset, 'types' | 'files'>): Item[] {
  const formats: string[] = FORMATS.map((f) => f.value);
  for (const t of dataset.types) if (!formats.includes(t)) formats.push(t);
  return formats.flatMap((format) => {
    const files = dataset.files.filter((f) => f.format === format).sort((a, b) => a.file_index - b.file_index);
    if (files.length <= 1) return [{ format, fileIndex: 0, label: formatLabel(format), size: files[0]?.size_bytes }];
    return files.map((f) => ({
      format,
      fileIndex: f.file_index,
      label: f.file_index === 0 ? formatLabel(format) : `${formatLabel(format)} file ${f.file_index + 1}`,
      size: f.size_bytes,
    }));
  });
}

/** The server's sentence, or a plain one while the server predates create_download_link (the
 *  document does not validate against its schema). */
function downloadError(error: CombinedError | undefined): string {
  if (errorCode(error) === 'graphql_validation') {
    return 'Downloads from the browser are not available on this server yet; use GET /api/v1/data/{dataset_id}.';
  }
  return errorDetail(error) ?? 'No download link was returned.';
}

export function DownloadMenu({ dataset, size = 'xs' }: { dataset: Pick<LiveDataset, 'dataset_id' | 'types' | 'files'>; size?: string }) {
  const [, createLink] = useMutation(CreateDownloadLinkMutation);
  const [pending, setPending] = useState(false);

  const download = async (item: Item) => {
    setPending(true);
    const result = await createLink({ dataset_id: dataset.dataset_id, format: item.format, file_index: item.fileIndex });
    setPending(false);
    const url = result.data?.create_download_link.url;
    if (url) window.location.assign(url);
    else notifications.show({ color: 'red', title: 'Download failed', message: downloadError(result.error) });
  };

  return (
    <Menu position="bottom-end" shadow="md" withinPortal withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <Button size={size} variant="default" loading={pending} leftSection={<IconDownload size={14} aria-hidden />}
          rightSection={<IconChevronDown size={14} aria-hidden />}>
          Download
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {downloadItems(dataset).map((item) => (
          <Menu.Item key={`${item.format}-${item.fileIndex}`} onClick={() => download(item)}
            rightSection={item.size != null ? <span aria-hidden>{formatBytes(item.size)}</span> : undefined}>
            {item.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
