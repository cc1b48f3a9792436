/**
 * The SQL: the editor with completion of the connection's tables and columns (its cached schema)
 * and of the declared parameters after `{{`, the schema's age with a refresh, and the assistant's
 * proposal when the assistant is available.
 */
import { useMemo } from 'react';
import { Button, Group, Text } from '@mantine/core';
import type { CompletionSource } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';
import { CodeEditor } from '../../../components/CodeEditor';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useConnectionSchema, useRefreshSchema, type Connection } from '../hooks';
import type { QueryDraft } from '../utils/draft';
import { completionNamespace, defaultSchemaOf, dialectOf } from '../utils/sqlSchema';
import { AssistantButton } from './AssistantDialog';

interface Props {
  draft: QueryDraft;
  onChange: (patch: Partial<QueryDraft>) => void;
  readOnly: boolean;
  error: string | undefined;
  connection: Connection | undefined;
  canEdit: boolean;
}

export function SqlSection({ draft, onChange, readOnly, error, connection, canEdit }: Props) {
  const t = useT();
  const schema = useConnectionSchema(draft.connectionId);
  const refresh = useRefreshSchema(draft.connectionId);
  const tables = schema.data?.tables;
  const sql = useMemo(() => ({
    dialect: dialectOf(connection?.type),
    schema: completionNamespace(tables ?? []) as SQLNamespace,
    defaultSchema: defaultSchemaOf(tables ?? []),
  }), [connection?.type, tables]);

  const names = draft.parameters.map((p) => p.name.trim()).filter((n) => n !== '');
  const namesKey = names.join(',');
  const completions = useMemo((): CompletionSource[] => [(ctx) => {
    const before = ctx.matchBefore(/\{\{\s*\w*$/);
    if (!before) return null;
    const word = /\w*$/.exec(before.text)![0];
    return {
      from: before.to - word.length,
      options: namesKey.split(',').filter(Boolean).map((n) => ({ label: n, type: 'variable', detail: t('queries.parameter'), apply: `${n} }}` })),
      validFor: /^\w*$/,
    };
  }], [namesKey, t]);
  const phrases = useMemo(() => ({ Completions: t('queries.completions') }), [t]);

  const refreshedAt = schema.data?.refreshed_at;
  return (
    <section aria-label={t('queries.sql')}>
      <CodeEditor language="sql" label={t('queries.sql')} required value={draft.sql} readOnly={readOnly} error={error}
        onChange={(value) => onChange({ sql: value })} sql={sql} completions={completions} phrases={phrases}
        placeholder={readOnly ? undefined : t('queries.sqlPlaceholder')} minHeight="10rem"
        description={readOnly ? undefined : t('queries.sqlHelp')} />
      <Group justify="space-between" mt={6} gap="xs" wrap="wrap">
        <Text size="xs" c="dimmed" role="status">
          {draft.connectionId === null ? t('queries.schemaNoConnection')
            : schema.isPending ? t('app.loading')
              : refreshedAt ? <>{t('queries.schemaFrom', { tables: tables?.length ?? 0 })} <Time value={refreshedAt} /></>
                : t('queries.schemaNever')}
        </Text>
        <Group gap="xs">
          {canEdit && draft.connectionId !== null && (
            <Button size="xs" variant="subtle" loading={refresh.isPending} onClick={() => refresh.mutate()}>
              {refreshedAt ? t('queries.schemaRefresh') : t('queries.schemaRead')}
            </Button>
          )}
          {canEdit && <AssistantButton draft={draft} onAccept={onChange} />}
        </Group>
      </Group>
      {refresh.isError && <ProblemAlert error={refresh.error} />}
    </section>
  );
}
