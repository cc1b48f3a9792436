/** Cancel a pending or running run (editors), after a confirmation. */
import { useState } from 'react';
import { Button, Group, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useCan } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useCancelRun } from '../hooks';

export function CancelRunButton({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const can = useCan('editor');
  const cancel = useCancelRun(run.id);
  const [confirming, setConfirming] = useState(false);
  const open = run.status === 'pending' || run.status === 'running';
  if (!can || !open || run.cancel_requested_at) return cancel.isError ? <ProblemAlert error={cancel.error} /> : null;
  if (!confirming) return <Button color="red" variant="light" onClick={() => setConfirming(true)}>{t('runs.cancel')}</Button>;
  return (
    <Group gap="xs" role="group" aria-label={t('runs.cancelConfirm')}>
      <Text size="sm">{t('runs.cancelConfirm')}</Text>
      <Button color="red" loading={cancel.isPending} onClick={() => cancel.mutate(undefined, { onSettled: () => setConfirming(false) })}>
        {t('runs.cancelYes')}
      </Button>
      <Button variant="default" onClick={() => setConfirming(false)}>{t('runs.cancelNo')}</Button>
    </Group>
  );
}
