/**
 * The query editor: a draft made from the query as read (the baseline), sections for the details,
 * the SQL, the parameters and the preview, and Save, which sends what changed with the baseline's
 * version (409: changed meanwhile, with reload). Viewers, and anyone on a query the configuration
 * directory manages, read it without edit controls.
 */
import { useEffect, useRef, useState } from 'react';
import { Alert, Badge, Button, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link, useLocation, useNavigate } from 'react-router';
import { problemCode } from '../../../api/client';
import { useCan } from '../../../api/session';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { PageHeader } from '../../../components/PageHeader';
import { useT } from '../../../i18n';
import { useConnections, useCreateQuery, useSavedQuery, useUpdateQuery, type Preview, type Query } from '../hooks';
import { useUnsavedChanges } from '../../../components/UnsavedChanges';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { changesOf, createBody, draftOf, emptyDraft, isDirty, type QueryDraft } from '../utils/draft';
import { ChangedMeanwhile } from './ChangedMeanwhile';
import { DeleteQueryButton } from './DeleteQueryButton';
import { DetailsSection } from './DetailsSection';
import { ParametersSection } from './ParametersSection';
import { PreviewSection } from './PreviewSection';
import { SqlSection } from './SqlSection';

export function QueryEditor({ query, connectionId = null }: { query?: Query; connectionId?: string | null }) {
  const t = useT();
  const navigate = useNavigate();
  const lastPreview = useRef<Preview | null>(null);
  const carried = (useLocation().state as { preview?: Preview } | null)?.preview;
  const canEdit = useCan('editor');
  const connections = useConnections();
  const [baseline, setBaseline] = useState<Query | undefined>(query);
  const [draft, setDraft] = useState<QueryDraft>(() => (query ? draftOf(query) : emptyDraft(connectionId)));
  const create = useCreateQuery();
  const update = useUpdateQuery(query?.id ?? '');
  const refetch = useSavedQuery(query?.id).refetch;

  // A newer version read while nothing is edited becomes the draft; with edits, Save will say 409.
  useEffect(() => {
    if (query && baseline && query.version !== baseline.version && !isDirty(draft, baseline)) {
      setBaseline(query);
      setDraft(draftOf(query));
    }
  }, [query, baseline, draft]);

  // A new query on the only connection there is needs no choice.
  const only = connections.data?.length === 1 ? connections.data[0]!.id : null;
  useEffect(() => {
    if (!query && draft.connectionId === null && only) setDraft((d) => ({ ...d, connectionId: only }));
  }, [query, only, draft.connectionId]);

  const locked = query?.managed?.by === 'gitops' && !query.managed.detached;
  const editable = canEdit && !locked;
  const save = query ? update : create;
  const errors = fieldErrors(save.error);
  const dirty = baseline ? isDirty(draft, baseline) : true;
  // A new query asks before leaving once something is written in it.
  const unsaved = useUnsavedChanges(editable && (baseline ? dirty : draft.name.trim() !== '' || draft.sql.trim() !== ''));
  const change = (patch: Partial<QueryDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const onSave = () => {
    if (!baseline) {
      create.mutate(createBody(draft), {
        onSuccess: (q) => {
          notifications.show({ color: 'green', message: t('queries.created', { name: q.name }) });
          unsaved.allowNext();
          // The preview made before the first save stays on the query's new page.
          void navigate(`/queries/${q.id}`, { replace: true, state: lastPreview.current ? { preview: lastPreview.current } : null });
        },
      });
      return;
    }
    update.mutate(changesOf(draft, baseline), {
      onSuccess: (q) => {
        setBaseline(q);
        setDraft(draftOf(q));
        notifications.show({ color: 'green', message: t('queries.saved', { number: q.current_version }) });
      },
    });
  };

  const reload = async () => {
    const fresh = await refetch();
    if (fresh.data) {
      setBaseline(fresh.data);
      setDraft(draftOf(fresh.data));
      update.reset();
    }
  };

  const connection = connections.data?.find((c) => c.id === draft.connectionId);
  const actions = (
    <>
      {query && <Button component={Link} to={`/queries/${query.id}/versions`} variant="default">{t('queries.versions')}</Button>}
      {/* The next step after a query: a report that runs it on a schedule and delivers it. */}
      {query && canEdit && <Button component={Link} to={`/reports/new?query_id=${query.id}`} variant="default">{t('queries.newReport')}</Button>}
      {query && editable && <DeleteQueryButton query={query} />}
      {query && editable && dirty && <Badge variant="dot" color="yellow" size="lg" role="status" tt="none">{t('queries.unsaved')}</Badge>}
      {editable && <Button onClick={onSave} loading={save.isPending} disabled={!dirty}>{t('app.save')}</Button>}
    </>
  );

  return (
    <Stack gap="lg">
      <PageHeader title={query ? query.name : t('queries.newTitle')} actions={actions}
        badge={query && <ManagedBadge kind="query" id={query.id} name={query.name} managed={query.managed} actions />} />
      {unsaved.dialog}
      {locked && (
        <Alert color="blue" role="status" title={t('queries.managed')}>{t('queries.managedBody', { path: query.managed?.path ?? '' })}</Alert>
      )}
      {problemCode(save.error) === 'conflict.version'
        ? <ChangedMeanwhile onReload={() => void reload()} />
        : save.isError && <ProblemAlert error={save.error} />}
      <DetailsSection draft={draft} onChange={change} readOnly={!editable} errors={errors} connections={connections.data ?? []} />
      <SqlSection draft={draft} onChange={change} readOnly={!editable} error={errors.sql} connection={connection} canEdit={editable} />
      <ParametersSection draft={draft} onChange={change} readOnly={!editable} errors={errors} />
      {canEdit && <PreviewSection draft={draft} initial={carried} onResult={(r) => { lastPreview.current = r; }} />}
    </Stack>
  );
}
