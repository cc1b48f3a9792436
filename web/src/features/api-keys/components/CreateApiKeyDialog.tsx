/**
 * Creating a key: name, owner (default the caller), a scope among those the owner's role can use,
 * and an expiry; the token is answered once and shown here with a Copy button.
 */
import { useState, type FormEvent } from 'react';
import { Button, Group, Modal, NativeSelect, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useCurrentUser } from '../../../api/session';
import { ProblemAlert, fieldErrors } from '../../../components/ProblemAlert';
import { ShownOnce } from '../../../components/ShownOnce';
import { useT } from '../../../i18n';
import { useAllUsers } from '../../users/hooks';
import { useCreateApiKey } from '../hooks';
import { EXPIRY_PRESETS, capScope, expiresAt, scopesFor, type ExpiryPreset, type Scope } from '../utils/keys';

export function CreateApiKeyDialog({ opened, onClose, ownerId }: { opened: boolean; onClose: () => void; ownerId?: string | undefined }) {
  const t = useT();
  const me = useCurrentUser();
  const users = useAllUsers(opened);
  const initial = { name: '', owner: ownerId ?? me.id, scope: 'read' as Scope, expiry: '90' as ExpiryPreset };
  const [form, setForm] = useState(initial);
  const create = useCreateApiKey();
  const close = () => { onClose(); create.reset(); setForm(initial); };
  const members = (users.data ?? []).filter((u) => u.enabled !== false || u.id === form.owner);
  const owner = members.find((u) => u.id === form.owner) ?? (form.owner === me.id ? me : undefined);
  const role = owner?.role ?? 'viewer';
  const offered = scopesFor(role);
  const scope = capScope(form.scope, role);
  const errors = fieldErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const expires = expiresAt(form.expiry, new Date());
    create.mutate({ name: form.name, scope, owner_id: form.owner, ...(expires ? { expires_at: expires } : {}) });
  };
  const created = create.data;
  return (
    <Modal opened={opened} onClose={close} size="lg" closeButtonProps={{ 'aria-label': t('app.close') }}
      title={created ? t('apiKeys.created.title', { name: created.key.name }) : t('apiKeys.create.title')}>
      {created ? (
        <Stack>
          <Text size="sm">{t('apiKeys.created.intro')}</Text>
          <ShownOnce label={t('apiKeys.token')} value={created.token} />
          <Group justify="flex-end"><Button onClick={close}>{t('apiKeys.done')}</Button></Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {create.isError && <ProblemAlert error={create.error} />}
            <TextInput label={t('apiKeys.name')} description={t('apiKeys.nameHint')} required value={form.name} error={errors.name}
              data-autofocus onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} />
            <NativeSelect label={t('apiKeys.owner')} description={t('apiKeys.ownerHint')} value={form.owner} error={errors.owner_id}
              data={(members.length > 0 ? members : [me]).map((u) => ({ value: u.id, label: `${u.name} (${t(`app.role.${u.role}`)})` }))}
              onChange={(e) => setForm({ ...form, owner: e.currentTarget.value })} />
            <Radio.Group label={t('apiKeys.scope')} value={scope} error={errors.scope}
              description={offered.length < 4 ? t('apiKeys.scopeHint', { role: t(`app.role.${role}`) }) : undefined}
              onChange={(v) => setForm({ ...form, scope: v as Scope })}>
              <Stack gap="xs" mt="xs">
                {offered.map((s) => (
                  <Radio key={s} value={s} label={t(`apiKeys.scope.${s}`)} description={t(`apiKeys.scope.${s}.hint`)} />
                ))}
              </Stack>
            </Radio.Group>
            <NativeSelect label={t('apiKeys.expiry')} value={form.expiry} error={errors.expires_at}
              data={EXPIRY_PRESETS.map((p) => ({ value: p, label: t(`apiKeys.expiry.${p}`) }))}
              onChange={(e) => setForm({ ...form, expiry: e.currentTarget.value as ExpiryPreset })} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>{t('app.cancel')}</Button>
              <Button type="submit" loading={create.isPending}>{t('apiKeys.create.submit')}</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
