/** The passkeys of this account: add (the browser's prompt), rename, remove. */
import { useState, type FormEvent } from 'react';
import { Badge, Button, Group, Modal, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { isFieldProblem, useFieldErrors } from '../../auth/components/FieldProblems';
import { usePasskeys, useRemovePasskey, useRenamePasskey } from '../hooks';
import { AddPasskey } from './AddPasskey';
import { Section } from './Section';

type Passkey = Schemas['Passkey'];

function RenameModal({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const t = useT();
  const rename = useRenamePasskey();
  const [name, setName] = useState(passkey.name);
  const errors = useFieldErrors(rename.error);
  const submit = (e: FormEvent) => { e.preventDefault(); rename.mutate({ id: passkey.id, name }, { onSuccess: onClose }); };
  return (
    <Modal opened onClose={onClose} title={t('profile.passkeys.renameTitle', { name: passkey.name })} closeButtonProps={{ 'aria-label': t('app.close') }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {rename.isError && !isFieldProblem(rename.error) && <ProblemAlert error={rename.error} />}
          <TextInput label={t('profile.passkeys.name')} required maxLength={100} value={name} error={errors.name} data-autofocus
            onChange={(e) => setName(e.currentTarget.value)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>{t('app.cancel')}</Button>
            <Button type="submit" loading={rename.isPending}>{t('app.save')}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RemoveModal({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const t = useT();
  const remove = useRemovePasskey();
  return (
    <Modal opened onClose={onClose} title={t('profile.passkeys.removeTitle', { name: passkey.name })} closeButtonProps={{ 'aria-label': t('app.close') }}>
      <Stack>
        <Text size="sm">{t('profile.passkeys.removeText')}</Text>
        {remove.isError && <ProblemAlert error={remove.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t('app.cancel')}</Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(passkey.id, { onSuccess: onClose })}>
            {t('profile.passkeys.remove')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function PasskeyTable({ items }: { items: Passkey[] }) {
  const t = useT();
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  if (items.length === 0) return <EmptyState title={t('profile.passkeys.none')}><Text size="sm" c="dimmed">{t('profile.passkeys.noneText')}</Text></EmptyState>;
  return (
    <>
      <Table.ScrollContainer minWidth={560}>
        <Table verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('profile.passkeys.name')}</Table.Th>
              <Table.Th>{t('profile.passkeys.created')}</Table.Th>
              <Table.Th>{t('profile.passkeys.lastUsed')}</Table.Th>
              <Table.Th><VisuallyHidden>{t('profile.actions')}</VisuallyHidden></Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm">{p.name}</Text>
                    {p.backed_up && <Badge variant="light" color="blue">{t('profile.passkeys.synced')}</Badge>}
                  </Group>
                </Table.Td>
                <Table.Td><Time value={p.created_at} /></Table.Td>
                <Table.Td>{p.last_used_at ? <Time value={p.last_used_at} /> : t('profile.passkeys.never')}</Table.Td>
                <Table.Td>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    <Button size="compact-sm" variant="subtle" aria-label={t('profile.passkeys.renameLabel', { name: p.name })}
                      onClick={() => setRenaming(p)}>{t('profile.passkeys.rename')}</Button>
                    <Button size="compact-sm" variant="subtle" color="red" aria-label={t('profile.passkeys.removeLabel', { name: p.name })}
                      onClick={() => setRemoving(p)}>{t('profile.passkeys.remove')}</Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {renaming && <RenameModal passkey={renaming} onClose={() => setRenaming(null)} />}
      {removing && <RemoveModal passkey={removing} onClose={() => setRemoving(null)} />}
    </>
  );
}

export function PasskeysSection() {
  const t = useT();
  const passkeys = usePasskeys();
  return (
    <Section title={t('profile.passkeys.title')} description={t('profile.passkeys.intro')} actions={<AddPasskey />}>
      <QueryState query={passkeys}>{(data) => <PasskeyTable items={data.items} />}</QueryState>
    </Section>
  );
}
