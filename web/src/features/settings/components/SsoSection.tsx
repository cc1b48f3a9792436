/**
 * Single sign-on (GET/PUT /settings/oidc): the provider, the client, who may come in and with which
 * role; the redirect URI to register at the provider with a copy button; the discovery test.
 */
import type { FormEvent } from 'react';
import { Button, CopyButton, Group, Select, Stack, Switch, TagsInput, TextInput, Tooltip } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { fieldErrors } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useOidcSettings, useReplaceOidcSettings, useSettingsForm } from '../hooks';
import { mappingObject, mappingRows, textOrNull, type MappingRow } from '../utils/format';
import { isConfigured, secretToSend, type SecretDraft } from '../utils/secret';
import { RoleMappingInput } from './RoleMappingInput';
import { LastChanged, SaveFeedback, SectionTitle } from './SaveFeedback';
import { SecretField } from './SecretField';
import { SsoTest } from './SsoTest';

type Oidc = Schemas['OidcSettings'];
type Role = Schemas['Role'];

const draftOf = (d: Oidc) => ({
  enabled: d.enabled,
  issuer_url: d.issuer_url ?? '',
  client_id: d.client_id ?? '',
  client_secret: undefined as SecretDraft,
  scopes: d.scopes,
  role_claim: d.role_claim ?? '',
  role_mapping: mappingRows(d.role_mapping) as MappingRow[],
  allowed_domains: d.allowed_domains,
  create_users: d.create_users,
  default_role: d.default_role,
  button_label: d.button_label,
});

export function SsoSection() {
  const query = useOidcSettings();
  return <QueryState query={query}>{(data) => <SsoForm data={data} reload={async () => (await query.refetch()).data} />}</QueryState>;
}

function SsoForm({ data, reload }: { data: Oidc; reload: () => Promise<Oidc | undefined> }) {
  const t = useT();
  const form = useSettingsForm(data, draftOf);
  const save = useReplaceOidcSettings();
  const errors = fieldErrors(save.error);
  const d = form.draft;
  const change = (patch: Partial<typeof d>) => { save.reset(); form.set(patch); };
  const stored = isConfigured(form.base.client_secret);
  const roles = (['viewer', 'editor', 'admin'] as const).map((r) => ({ value: r, label: t(`settings.role.${r}`) }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const secret = secretToSend(stored, d.client_secret);
    save.mutate({
      enabled: d.enabled,
      issuer_url: textOrNull(d.issuer_url),
      client_id: textOrNull(d.client_id),
      ...(secret === undefined ? {} : { client_secret: secret }),
      scopes: d.scopes,
      role_claim: textOrNull(d.role_claim),
      role_mapping: mappingObject(d.role_mapping),
      allowed_domains: d.allowed_domains,
      create_users: d.create_users,
      default_role: d.default_role,
      ...(d.button_label.trim() === '' ? {} : { button_label: d.button_label.trim() }),
      version: form.base.version,
    }, { onSuccess: (saved) => form.reset(saved) });
  };
  const onReload = async () => {
    const fresh = await reload();
    save.reset();
    if (fresh) form.reset(fresh);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={720} gap="md">
        <SectionTitle title={t('settings.sso.title')} intro={t('settings.sso.intro')} />
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <TextInput style={{ flex: 1 }} readOnly label={t('settings.sso.redirectUri')} description={t('settings.sso.redirectUriHelp')}
            value={form.base.redirect_uri} />
          <CopyButton value={form.base.redirect_uri}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? t('settings.copied') : t('settings.copy')} withArrow>
                <Button variant="default" onClick={copy} aria-label={t('settings.sso.copyRedirectUri')}>
                  {copied ? t('settings.copied') : t('settings.copy')}
                </Button>
              </Tooltip>
            )}
          </CopyButton>
        </Group>
        <Switch label={t('settings.sso.enabled')} description={t('settings.sso.enabledHelp')} checked={d.enabled}
          error={errors.enabled} onChange={(e) => change({ enabled: e.currentTarget.checked })} />
        <TextInput label={t('settings.sso.issuerUrl')} description={t('settings.sso.issuerUrlHelp')} value={d.issuer_url}
          error={errors.issuer_url} placeholder="https://login.example.com" onChange={(e) => change({ issuer_url: e.currentTarget.value })} />
        <SsoTest issuerUrl={textOrNull(d.issuer_url)} />
        <TextInput label={t('settings.sso.clientId')} value={d.client_id} error={errors.client_id}
          onChange={(e) => change({ client_id: e.currentTarget.value })} />
        <SecretField label={t('settings.sso.clientSecret')} description={t('settings.sso.clientSecretHelp')} stored={stored}
          value={d.client_secret} error={errors.client_secret} onChange={(v) => change({ client_secret: v })} />
        <TagsInput label={t('settings.sso.scopes')} description={t('settings.sso.scopesHelp')} value={d.scopes}
          error={errors.scopes} onChange={(v) => change({ scopes: v })} />
        <TextInput label={t('settings.sso.buttonLabel')} value={d.button_label} error={errors.button_label}
          onChange={(e) => change({ button_label: e.currentTarget.value })} />
        <TagsInput label={t('settings.sso.allowedDomains')} description={t('settings.sso.allowedDomainsHelp')} value={d.allowed_domains}
          error={errors.allowed_domains} onChange={(v) => change({ allowed_domains: v })} />
        <Switch label={t('settings.sso.createUsers')} description={t('settings.sso.createUsersHelp')} checked={d.create_users}
          onChange={(e) => change({ create_users: e.currentTarget.checked })} />
        <Select label={t('settings.sso.defaultRole')} description={t('settings.sso.defaultRoleHelp')} data={roles} value={d.default_role}
          allowDeselect={false} error={errors.default_role} onChange={(v) => change({ default_role: (v ?? 'viewer') as Role })} />
        <TextInput label={t('settings.sso.roleClaim')} description={t('settings.sso.roleClaimHelp')} value={d.role_claim}
          error={errors.role_claim} placeholder="groups" onChange={(e) => change({ role_claim: e.currentTarget.value })} />
        <RoleMappingInput label={t('settings.sso.roleMapping')} description={t('settings.sso.roleMappingHelp')} value={d.role_mapping}
          error={errors.role_mapping} onChange={(rows) => change({ role_mapping: rows })} />
        <SaveFeedback error={save.error} saved={save.isSuccess} onReload={() => void onReload()} />
        <Group justify="space-between">
          <Button type="submit" loading={save.isPending}>{t('app.save')}</Button>
          <LastChanged at={form.base.updated_at} />
        </Group>
      </Stack>
    </form>
  );
}
