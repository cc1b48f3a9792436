/** Name, description and connection of the draft. */
import { Select, SimpleGrid, Textarea, TextInput } from '@mantine/core';
import { useT } from '../../../i18n';
import type { Connection } from '../hooks';
import type { QueryDraft } from '../utils/draft';

interface Props {
  draft: QueryDraft;
  onChange: (patch: Partial<QueryDraft>) => void;
  readOnly: boolean;
  errors: Record<string, string>;
  connections: Connection[];
}

export function DetailsSection({ draft, onChange, readOnly, errors, connections }: Props) {
  const t = useT();
  const options = connections.map((c) => ({ value: c.id, label: `${c.name} (${c.type})` }));
  if (draft.connectionId && !connections.some((c) => c.id === draft.connectionId)) options.push({ value: draft.connectionId, label: draft.connectionId });
  return (
    <section aria-label={t('queries.details')}>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <TextInput label={t('queries.name')} required readOnly={readOnly} value={draft.name} error={errors.name}
          onChange={(e) => onChange({ name: e.currentTarget.value })} />
        <Select label={t('queries.connection')} required readOnly={readOnly} data={options} value={draft.connectionId}
          searchable={!readOnly} nothingFoundMessage={t('queries.noConnection')} error={errors.connection_id}
          placeholder={t('queries.pickConnection')} allowDeselect={false}
          description={connections.length === 0 && !readOnly ? t('queries.noConnections') : undefined}
          onChange={(value) => onChange({ connectionId: value })} />
      </SimpleGrid>
      <Textarea mt="sm" label={t('queries.description')} readOnly={readOnly} autosize minRows={1} maxRows={4}
        value={draft.description} error={errors.description} onChange={(e) => onChange({ description: e.currentTarget.value })} />
    </section>
  );
}
