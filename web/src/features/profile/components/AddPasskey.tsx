/** Adding a passkey: an optional name, then the browser's own prompt (navigator.credentials.create). */
import { useState, type FormEvent } from 'react';
import { Button, Modal, Stack, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notify } from '../../auth/utils/notify';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { describePasskeyError, passkeysSupported } from '../../auth/utils/webauthn';
import { useAddPasskey } from '../hooks';

export function AddPasskey({ onAdded, variant = 'default' }: { onAdded?: () => void; variant?: 'default' | 'filled' }) {
  const t = useT();
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const add = useAddPasskey();
  if (!passkeysSupported()) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(name, {
      onSuccess: (passkey) => {
        close();
        setName('');
        notify(t, t('profile.passkeys.added', { name: passkey.name }));
        onAdded?.();
      },
    });
  };
  return (
    <>
      <Button variant={variant} onClick={() => { add.reset(); open(); }}>{t('profile.passkeys.add')}</Button>
      <Modal opened={opened} onClose={close} title={t('profile.passkeys.addTitle')} closeButtonProps={{ 'aria-label': t('app.close') }}>
        <form onSubmit={submit} noValidate>
          <Stack>
            {add.isError && <ProblemAlert error={describePasskeyError(add.error, t)} />}
            <TextInput label={t('profile.passkeys.name')} description={t('profile.passkeys.nameHint')} value={name}
              maxLength={100} data-autofocus onChange={(e) => setName(e.currentTarget.value)} />
            <Button type="submit" loading={add.isPending}>{t('profile.passkeys.create')}</Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
