/**
 * /queries/:queryId/versions: the versions, newest first; the changes between two of them (from
 * and to in the address, so a comparison can be linked); restore for editors.
 */
import { Anchor, Button, Stack } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useSavedQuery } from '../hooks';
import { VersionDiff } from '../components/VersionDiff';
import { VersionList } from '../components/VersionList';

export function QueryVersionsPage() {
  const t = useT();
  const { queryId } = useParams();
  const query = useSavedQuery(queryId);
  const [params, setParams] = useSearchParams();
  return (
    <QueryState query={query}>
      {(q) => {
        const to = Number(params.get('to') ?? q.current_version);
        const from = Number(params.get('from') ?? Math.max(1, to - 1));
        const compare = (a: number, b: number) => setParams({ from: String(a), to: String(b) }, { replace: true });
        return (
          <Stack gap="lg">
            <PageHeader title={t('queries.versionsOf', { name: q.name })}
              actions={<Button component={Link} to={`/queries/${q.id}`} variant="default">{t('queries.backToQuery')}</Button>} />
            <VersionList query={q} from={from} to={to} onCompare={compare} onRestored={() => setParams({}, { replace: true })} />
            {q.current_version > 1
              ? <VersionDiff query={q} from={from} to={to} onChange={compare} />
              : <Anchor component={Link} to={`/queries/${q.id}`} size="sm">{t('queries.onlyOneVersion')}</Anchor>}
          </Stack>
        );
      }}
    </QueryState>
  );
}
