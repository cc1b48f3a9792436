/** A status as a word and a colour (never by colour alone). */
import { Badge } from '@mantine/core';
import { useT } from '../i18n';

const COLOURS: Record<string, string> = {
  succeeded: 'green', success: 'green', sent: 'green', active: 'green', ok: 'green', healthy: 'green',
  failed: 'red', error: 'red', failing: 'red', unhealthy: 'red',
  running: 'blue', sending: 'blue', queued: 'gray', pending: 'gray',
  cancelled: 'gray', skipped: 'gray', paused: 'yellow', degraded: 'yellow', partial: 'orange',
};

export function StatusBadge({ status }: { status: string }) {
  const t = useT();
  const label = t(`status.${status}`);
  return <Badge color={COLOURS[status] ?? 'gray'} variant="light">{label === `status.${status}` ? status : label}</Badge>;
}
