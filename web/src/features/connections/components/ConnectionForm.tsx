/**
 * A connection's fields: its name, its type (a connector plugin; chosen once) and the settings its
 * plugin's settings_schema describes, drawn by PluginSettingsForm with the plugin's translations.
 * The password follows the secret convention (Configured · Replace · Remove; sent only when typed).
 * "Test connection" tries the settings as typed (an edit's over the saved ones, so the stored
 * password serves) and shows the database's own answer; save shows problems on their fields, and
 * 409 conflict.version offers a reload.
 */
import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { problemCode } from '../../../api/client';
import { PluginSettingsForm, usePluginTexts } from '../../../components/PluginSettingsForm';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { valueToSend, withDefaults, type JsonSchema } from '../../../components/schema-form';
import { useT } from '../../../i18n';
import { useCreateConnection, useTestSettings, useUpdateConnection, useConnectorName, type Connection, type CreateConnection, type Plugin, type TestConnectionSettings, type UpdateConnection } from '../hooks';
import { editedSettings, settingsOf, startObjects, testBody } from '../utils/settings';
import { TestResult } from './TestResult';

const EMPTY: JsonSchema = { type: 'object', properties: {} };
const schemaOf = (plugin: Plugin | undefined): JsonSchema => (plugin?.settings_schema ?? EMPTY) as JsonSchema;
const fieldNames = (schema: JsonSchema): string[] => Object.keys(schema.properties ?? {});
/** A new connection's settings: the schema's defaults, those inside its objects (options) too. */
const fresh = (schema: JsonSchema): Record<string, unknown> => withDefaults(schema, startObjects(schema));

export interface ConnectionFormProps {
  /** The connection to edit; a new one without. */
  connection?: Connection | undefined;
  /** The version the edit started from. */
  version?: number | undefined;
  connectors: Plugin[];
  readOnly: boolean;
  onSaved: (connection: Connection) => void;
  onDirty?: (dirty: boolean) => void;
  /** Loads the connection again after 409 (the caller starts the form over). */
  onReload?: () => void;
}

export function ConnectionForm({ connection, version, connectors, readOnly, onSaved, onDirty, onReload }: ConnectionFormProps) {
  const t = useT();
  const connectorName = useConnectorName();
  const [name, setName] = useState(connection?.name ?? '');
  const [type, setType] = useState<string | null>(connection?.type ?? (connectors.length === 1 ? connectors[0]!.id : null));
  const plugin = connectors.find((p) => p.id === type);
  const schema = schemaOf(plugin);
  const saved = connection ? settingsOf(fieldNames(schema), connection as unknown as Record<string, unknown>) : {};
  const [settings, setSettings] = useState<Record<string, unknown>>(() => (connection ? withDefaults(schema, saved) : fresh(schema)));
  const [dirty, setDirty] = useState(false);
  const texts = usePluginTexts(plugin?.translations);
  const create = useCreateConnection();
  const update = useUpdateConnection(connection?.id ?? '');
  const save = connection ? update : create;
  const test = useTestSettings();
  const errors = { ...fieldErrors(test.error), ...fieldErrors(save.error) };
  const conflict = problemCode(save.error) === 'conflict.version';

  useEffect(() => { onDirty?.(dirty); }, [dirty, onDirty]);
  const changed = () => { setDirty(true); test.reset(); };

  /** The settings as they go out: valueToSend's, and for an edit what was emptied. */
  const toSend = (): Record<string, unknown> => {
    const sent = valueToSend(schema, settings);
    return connection ? editedSettings(sent, settings, saved, schema.required ?? []) : sent;
  };
  const chooseType = (id: string | null) => {
    setType(id);
    setSettings(fresh(schemaOf(connectors.find((p) => p.id === id))));
    changed();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const options = { onSuccess: (c: Connection) => { setDirty(false); onSaved(c); } };
    if (connection) update.mutate({ ...toSend(), name, version: version ?? connection.version } as UpdateConnection, options);
    else create.mutate({ ...toSend(), name, type: type ?? '' } as CreateConnection, options);
  };
  const runTest = () => test.mutate(testBody(type ?? '', toSend(), connection?.id) as TestConnectionSettings);

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} noValidate aria-label={t('connections.form')}>
      <Title order={2} size="h4" mb="sm">{t('connections.section.connection')}</Title>
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack gap="sm">
          <TextInput label={t('connections.field.name')} withAsterisk value={name} error={errors.name}
            onChange={(e) => { setName(e.currentTarget.value); changed(); }} />
          <Select label={t('connections.field.type')} withAsterisk allowDeselect={false} value={type} error={errors.type}
            disabled={readOnly || connection !== undefined} description={connection ? undefined : t('connections.field.typeHelp')}
            data={connectors.map((p) => ({ value: p.id, label: connectorName(p.id) }))} onChange={chooseType} />
          {connectors.length === 0 && <Text size="sm" c="dimmed">{t('connections.noConnectors')}</Text>}
          {plugin && (
            <PluginSettingsForm key={plugin.id} schema={schema} value={settings} texts={texts} errors={errors} disabled={readOnly}
              onChange={(v) => { setSettings(v); changed(); }} />
          )}
          <TestResult result={test.data} error={test.error} />
          {conflict ? (
            <Alert color="yellow" role="alert" title={t('app.changedMeanwhile')}>
              {onReload && <Button size="xs" variant="light" onClick={onReload}>{t('app.reload')}</Button>}
            </Alert>
          ) : save.isError && <ProblemAlert error={save.error} />}
          {!readOnly && (
            <Group>
              <Button type="submit" loading={save.isPending}>{connection ? t('connections.save') : t('connections.create')}</Button>
              {/* A saved connection has its own test in the page's header: this one tries unsaved changes. */}
              {(!connection || dirty) && (
                <Button variant="light" disabled={!plugin} loading={test.isPending} onClick={runTest}>
                  {connection ? t('connections.testChanges') : t('connections.test')}
                </Button>
              )}
              {connection && dirty && <Text size="sm" c="dimmed" role="status">{t('connections.unsaved')}</Text>}
            </Group>
          )}
        </Stack>
      </fieldset>
    </Paper>
  );
}
