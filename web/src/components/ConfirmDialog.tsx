/**
 * A question before an action that cannot be undone (revoke, reset, turn off): what will happen,
 * Cancel, and the action's own name on the button. The action's error shows inside the dialog.
 */
import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useT } from '../i18n';
import { ProblemAlert } from './ProblemAlert';

export interface ConfirmDialogProps {
  opened: boolean;
  title: string;
  /** What the action does, in the words of the person who confirms it. */
  children: ReactNode;
  confirmLabel: string;
  /** Destructive actions are red. */
  danger?: boolean;
  loading?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
}

export function ConfirmDialog({ opened, title, children, confirmLabel, danger = true, loading, error, onConfirm, onClose }: ConfirmDialogProps) {
  const t = useT();
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered closeButtonProps={{ 'aria-label': t('app.close') }}>
      <Stack>
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        {error ? <ProblemAlert error={error} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t('app.cancel')}</Button>
          <Button color={danger ? 'red.9' : undefined} loading={loading} onClick={onConfirm} data-autofocus>{confirmLabel}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
