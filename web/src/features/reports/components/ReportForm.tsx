/**
 * A report's own fields: title and description, the query and its parameter values, the
 * schedule, the condition. Starts from the report as loaded and sends `version` back; the
 * service checks everything and its errors land on their fields (`schedule.cron`,
 * `parameters.<name>`, …); 409 conflict.version says someone changed it meanwhile.
 */
import { Alert, Anchor, Button, Group, Paper, Select, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { problemCode } from '../../../api/client';
import { CronInput, type Schedule } from '../../../components/CronInput';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { useI18n } from '../../../i18n';
import { useAllQueries, useCreateReport, useLastRunColumns, useQueryParameters, useUpdateReport, type Report } from '../hooks';
import { conditionForm, conditionOf, type ConditionForm } from '../utils/condition';
import { parameterForm, parameterValues, type QueryParameter } from '../utils/parameters';
import { useUnsavedChanges } from '../../../components/UnsavedChanges';
import { ConditionEditor } from './ConditionEditor';
import { ParameterValues } from './ParameterValues';

interface FormState {
  title: string;
  description: string;
  queryId: string | null;
  queryVersion: number | null;
  parameters: Record<string, string>;
  scheduled: boolean;
  schedule: Schedule;
  condition: ConditionForm;
}

function initialState(report: Report | undefined, timeZone: string, queryId: string | null): FormState {
  return {
    title: report?.title ?? '',
    description: report?.description ?? '',
    queryId: report?.query_id ?? queryId,
    queryVersion: report?.query_version ?? null,
    parameters: parameterForm(report?.parameters ?? {}),
    scheduled: report ? report.schedule !== null : true,
    schedule: report?.schedule ?? { cron: '0 8 * * 1-5', timezone: timeZone },
    condition: conditionForm(report?.condition as Parameters<typeof conditionForm>[0]),
  };
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">{title}</Title>
      {children}
    </Paper>
  );
}

export interface ReportFormProps {
  /** The report to edit; a new one without. */
  report?: Report | undefined;
  /** The version the edit started from (the caller moves it on after its own changes). */
  version?: number | undefined;
  /** A query to start a new report from (?query_id=). */
  queryId?: string | null;
  readOnly: boolean;
  onSaved: (report: Report) => void;
  onDirty?: (dirty: boolean) => void;
  /** Loads the report again after 409 (the caller starts the form over). */
  onReload?: () => void;
}

export function ReportForm({ report, version, queryId = null, readOnly, onSaved, onDirty, onReload }: ReportFormProps) {
  const { t, timeZone } = useI18n();
  const [state, setState] = useState(() => initialState(report, timeZone, queryId));
  const [dirty, setDirty] = useState(false);
  const queries = useAllQueries();
  const columns = useLastRunColumns(report?.last_run?.id);
  const query = useQueryParameters(state.queryId ?? undefined, state.queryVersion);
  const create = useCreateReport();
  const update = useUpdateReport(report?.id ?? '');
  const save = report ? update : create;
  const errors = fieldErrors(save.error);
  const conflict = problemCode(save.error) === 'conflict.version';

  useEffect(() => { onDirty?.(dirty); }, [dirty, onDirty]);
  const unsaved = useUnsavedChanges(!readOnly && dirty);
  const set = (patch: Partial<FormState>) => { setState((s) => ({ ...s, ...patch })); setDirty(true); };

  const parameters = (query.data?.parameters ?? []) as QueryParameter[];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = {
      title: state.title,
      description: state.description.trim() === '' ? null : state.description,
      query_id: state.queryId ?? '',
      query_version: state.queryVersion,
      parameters: parameterValues(parameters, state.parameters),
      schedule: state.scheduled ? { cron: state.schedule.cron.trim(), timezone: state.schedule.timezone } : null,
      condition: conditionOf(state.condition),
    };
    const options = { onSuccess: (saved: Report) => { setDirty(false); unsaved.allowNext(); onSaved(saved); } };
    if (report) update.mutate({ ...body, version: version ?? report.version }, options);
    else create.mutate(body, options);
  };

  const queryOptions = (queries.data ?? []).map((q) => ({ value: q.id, label: q.name }));
  return (
    <form onSubmit={submit} noValidate aria-label={t('reports.form')}>
      {unsaved.dialog}
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack>
          <Section title={t('reports.section.report')}>
            <Stack gap="sm">
              <TextInput label={t('reports.field.title')} withAsterisk value={state.title} error={errors.title}
                onChange={(e) => set({ title: e.currentTarget.value })} />
              <Textarea label={t('reports.field.description')} autosize minRows={2} value={state.description} error={errors.description}
                onChange={(e) => set({ description: e.currentTarget.value })} />
              <Select label={t('reports.field.query')} withAsterisk searchable data={queryOptions} value={state.queryId}
                error={errors.query_id ?? errors.query_version ?? (queries.isError ? t('reports.queriesFailed') : undefined)}
                nothingFoundMessage={t('reports.noQueryFound')} allowDeselect={false}
                description={state.queryVersion ? t('reports.pinnedVersion', { version: state.queryVersion }) : undefined}
                onChange={(id) => set({ queryId: id, queryVersion: null, parameters: {} })} />
              {queries.isSuccess && queries.data.length === 0 && (
                <Text size="sm">{t('reports.noQueries')} <Anchor component={Link} to="/queries/new">{t('reports.newQuery')}</Anchor></Text>
              )}
            </Stack>
          </Section>
          {state.queryId && (
            <Section title={t('reports.section.parameters')}>
              {query.isError ? <ProblemAlert error={query.error} /> : (
                <ParameterValues parameters={parameters} value={state.parameters} errors={errors} disabled={readOnly}
                  onChange={(p) => set({ parameters: p })} />
              )}
            </Section>
          )}
          <Section title={t('reports.section.schedule')}>
            <Stack gap="sm">
              <Switch label={t('reports.field.scheduled')} checked={state.scheduled} onChange={(e) => set({ scheduled: e.currentTarget.checked })}
                description={state.scheduled ? undefined : t('reports.onDemandHelp')} />
              {state.scheduled && (
                <CronInput value={state.schedule} onChange={(s) => set({ schedule: s })} disabled={readOnly}
                  errors={{ cron: errors['schedule.cron'] ?? errors.schedule, timezone: errors['schedule.timezone'] }} />
              )}
            </Stack>
          </Section>
          <Section title={t('reports.section.condition')}>
            <ConditionEditor value={state.condition} onChange={(c) => set({ condition: c })} errors={errors} disabled={readOnly} columns={columns} />
          </Section>
          {conflict ? (
            <Alert color="yellow" role="alert" title={t('app.changedMeanwhile')}>
              {onReload && <Button size="xs" variant="light" onClick={onReload}>{t('app.reload')}</Button>}
            </Alert>
          ) : save.isError && <ProblemAlert error={save.error} />}
          {!readOnly && (
            <Group>
              <Button type="submit" loading={save.isPending}>{report ? t('reports.save') : t('reports.create')}</Button>
              {report && dirty && <Text size="sm" c="dimmed" role="status">{t('reports.unsaved')}</Text>}
            </Group>
          )}
        </Stack>
      </fieldset>
    </form>
  );
}
