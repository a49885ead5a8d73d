// Upload a schema: drop it on the area or pick it with "Choose file"; the file is read here and sent
// to upload_schema, then the new schema's page opens.
import { Alert, Button, CloseButton, FileButton, Group, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import { IconFileUpload, IconUpload, IconX } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useMutation } from 'urql';
import { errorDetail, fieldErrors } from '../../api/errors';
import { graphql } from '../../gql';
import { ProjectSelect } from './ProjectSelect';
import { extensionError, MAX_SCHEMA_SIZE, readUpload, SCHEMA_ACCEPT, tooLargeSentence } from './uploadFile';

const UploadSchemaMutation = graphql(`
  mutation UploadSchema($input: SchemaUploadInput!) {
    upload_schema(input: $input) { schema_id name }
  }
`);

export function SchemaUpload({ focus, onClose }: { focus: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const [state, upload] = useMutation(UploadSchemaMutation);
  const [name, setName] = useState('');
  const [projectId, setProjectId] = useState<number | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const [busyFile, setBusyFile] = useState<string | null>(null);
  const dropRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focus) dropRef.current?.focus();
  }, [focus]);

  const send = async (file: File | null | undefined) => {
    if (!file) return;
    setLocalError(null);
    const problem = extensionError(file.name) ?? tooLargeSentence(file.size);
    if (problem) {
      setLocalError(problem);
      return;
    }
    setBusyFile(file.name);
    try {
      const body = await readUpload(file);
      const result = await upload({
        input: { ...body, filename: file.name, name: name.trim() || null, project_id: projectId },
      });
      const created = result.data?.upload_schema;
      if (created) {
        notifications.show({ color: 'green', title: 'Schema uploaded', message: `${created.name} is in the library.` });
        navigate(`/library/schemas/${created.schema_id}`);
      }
    } finally {
      setBusyFile(null);
    }
  };

  const serverDetail = localError ? null : errorDetail(state.error);
  const nameError = fieldErrors(state.error).find((e) => e.field === 'name' || e.field.endsWith('.name'));
  const busy = busyFile !== null;

  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600}>Upload a schema</Text>
          <CloseButton aria-label="Close upload" onClick={onClose} />
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Name" description="Optional; the file name by default" value={name}
            onChange={(e) => setName(e.currentTarget.value)} maxLength={200}
            error={nameError ? `${nameError.message}.`.replace('..', '.') : undefined} />
          <ProjectSelect value={projectId} onChange={setProjectId} description="Optional; link the schema to it" />
        </SimpleGrid>
        <Dropzone
          ref={dropRef}
          onDrop={(files) => send(files[0])}
          onReject={(rejections) => setLocalError(extensionError(rejections[0]?.file.name ?? 'The file') ??
            'Only one .json, .xsd or .zip file can be uploaded at a time.')}
          accept={SCHEMA_ACCEPT}
          multiple={false}
          loading={busy}
          // a named group, not a button: "Choose file" is the button; the area takes drops, clicks and Enter
          role="group"
          aria-label="Upload a schema"
          aria-describedby="upload-hint"
        >
          <Group justify="center" gap="md" mih={110} style={{ pointerEvents: 'none' }} wrap="nowrap">
            <Dropzone.Accept><IconUpload size={40} aria-hidden /></Dropzone.Accept>
            <Dropzone.Reject><IconX size={40} aria-hidden /></Dropzone.Reject>
            <Dropzone.Idle><IconFileUpload size={40} aria-hidden /></Dropzone.Idle>
            <div>
              <Text size="lg">Drop a schema file here</Text>
              <Text size="sm" c="dimmed" id="upload-hint">
                JSON Schema (.json), XSD (.xsd) or a .zip of XSD files, up to {MAX_SCHEMA_SIZE}.
              </Text>
            </div>
          </Group>
        </Dropzone>
        <Group gap="sm">
          <FileButton onChange={send} accept=".json,.xsd,.zip">
            {(props) => <Button {...props} variant="default" loading={busy}>Choose file</Button>}
          </FileButton>
          {busyFile && <Text size="sm" c="dimmed">Uploading {busyFile}…</Text>}
        </Group>
        {(localError || serverDetail) && (
          <Alert color="red" variant="light" title="The schema was not uploaded" role="alert">
            {localError ?? serverDetail}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
