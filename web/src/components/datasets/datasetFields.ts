// What every dataset list reads (one fragment, so the live hook, the tables and the download menu
// agree), and the vocabularies of the dataset form.
import { graphql } from '../../gql';
import { OutputFormat, type LiveDatasetFieldsFragment } from '../../gql/graphql';

export const LiveDatasetFields = graphql(`
  fragment LiveDatasetFields on Dataset {
    dataset_id name project_id schema_id constraint_set_id record_count types params status progress
    records_generated error attempt created_at started_at finished_at
    files { format file_index records size_bytes sha256 }
    viewer_can { start cancel delete }
  }
`);

export type LiveDataset = LiveDatasetFieldsFragment;

export const ACTIVE_STATUSES = ['queued', 'running'] as const;

export function isActive(dataset: Pick<LiveDataset, 'status'>): boolean {
  return (ACTIVE_STATUSES as readonly string[]).includes(dataset.status);
}

// The output formats, from the schema's OutputFormat enum (docs/schema.graphql, made
// from app/generation/output_formats.py): a new format appears in the form, the download menu and
// the preview's views with no edit here. Each label is the format's name in capitals.
export const FORMATS: readonly { value: OutputFormat; label: string }[] = Object.values(OutputFormat)
  .map((value) => ({ value, label: value.toUpperCase() }));

export function formatLabel(format: string): string {
  return FORMATS.find((f) => f.value === format)?.label ?? format.toUpperCase();
}

// Faker locales the generator knows (app/generation/vocab.py accepts any Faker locale; these are the
// ones offered, the server still validates).
export const LOCALES = [
  { value: 'en_US', label: 'English (US) · en_US' },
  { value: 'en_GB', label: 'English (UK) · en_GB' },
  { value: 'de_DE', label: 'German · de_DE' },
  { value: 'fr_FR', label: 'French · fr_FR' },
  { value: 'es_ES', label: 'Spanish · es_ES' },
  { value: 'it_IT', label: 'Italian · it_IT' },
  { value: 'nl_NL', label: 'Dutch · nl_NL' },
  { value: 'pl_PL', label: 'Polish · pl_PL' },
  { value: 'pt_BR', label: 'Portuguese (Brazil) · pt_BR' },
  { value: 'sv_SE', label: 'Swedish · sv_SE' },
  { value: 'ja_JP', label: 'Japanese · ja_JP' },
  { value: 'zh_CN', label: 'Chinese (Simplified) · zh_CN' },
];
