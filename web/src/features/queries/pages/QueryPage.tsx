/** /queries/new and /queries/:queryId: the query editor, on a new draft or on the query as saved. */
import { useParams, useSearchParams } from 'react-router';
import { QueryState } from '../../../components/QueryState';
import { QueryEditor } from '../components/QueryEditor';
import { useSavedQuery } from '../hooks';

export function NewQueryPage() {
  // ?connection_id= (from a connection's page) starts the draft on that connection.
  const [params] = useSearchParams();
  return <QueryEditor connectionId={params.get('connection_id')} />;
}

export function QueryPage() {
  const { queryId } = useParams();
  const query = useSavedQuery(queryId);
  return <QueryState query={query}>{(q) => <QueryEditor key={q.id} query={q} />}</QueryState>;
}
