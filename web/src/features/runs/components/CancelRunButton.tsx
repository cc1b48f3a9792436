/** Cancel a pending or running run (editors), after a confirmation. */
import { useState } from 'react';
import { Button } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useCan } from '../../../api/session';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { useT } from '../../../i18n';
import { useCancelRun } from '../hooks';

export function CancelRunButton({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const can = useCan('editor');
  const cancel = useCancelRun(run.id);
  const [confirming, setConfirming] = useState(false);
  const open = run.status === 'pending' || run.status === 'running';
  if (!can || !open || run.cancel_requested_at) return null;
  return (
    <>
      <Button color="red" variant="light" onClick={() => { cancel.reset(); setConfirming(true); }}>{t('runs.cancel')}</Button>
      <ConfirmDialog opened={confirming} title={t('runs.cancelTitle')} confirmLabel={t('runs.cancel')}
        loading={cancel.isPending} error={cancel.error}
        onConfirm={() => cancel.mutate(undefined, { onSuccess: () => setConfirming(false) })} onClose={() => setConfirming(false)}>
        {t('runs.cancelConfirm')}
      </ConfirmDialog>
    </>
  );
}
