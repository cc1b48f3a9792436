/** A button that asks first: a dialog naming what will happen, with the action's error in it. */
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';

export interface ConfirmButtonProps extends ButtonProps {
  children: ReactNode;
  /** The dialog's title and text, and its confirming button's label. */
  title: string;
  text: string;
  confirmLabel: string;
  'aria-label'?: string;
  pending: boolean;
  error: unknown;
  onConfirm: (close: () => void) => void;
}

export function ConfirmButton({ children, title, text, confirmLabel, pending, error, onConfirm, ...button }: ConfirmButtonProps) {
  const t = useT();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button {...button} onClick={open}>{children}</Button>
      <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': t('app.close') }}>
        <Stack>
          <Text size="sm">{text}</Text>
          {error ? <ProblemAlert error={error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>{t('app.cancel')}</Button>
            <Button color="red" loading={pending} onClick={() => onConfirm(close)}>{confirmLabel}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
