/** The role mapping of single sign-on: rows of a claim value and the role it gives. */
import { ActionIcon, Button, Group, Input, Select, Stack, TextInput } from '@mantine/core';
import { useT } from '../../../i18n';
import type { MappingRow } from '../utils/format';

const ROLES: MappingRow['role'][] = ['viewer', 'editor', 'admin'];

export function RoleMappingInput({ label, description, error, value, onChange }: {
  label: string; description?: string; error?: string | undefined; value: MappingRow[]; onChange: (rows: MappingRow[]) => void;
}) {
  const t = useT();
  const roles = ROLES.map((r) => ({ value: r, label: t(`settings.role.${r}`) }));
  const update = (i: number, patch: Partial<MappingRow>) => onChange(value.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <Input.Wrapper label={label} description={description} error={error}>
      <Stack gap="xs" mt={4}>
        {value.map((row, i) => (
          <Group key={i} gap="xs" wrap="nowrap" align="flex-end">
            <TextInput style={{ flex: 1 }} label={t('settings.sso.claimValue', { n: i + 1 })} value={row.value}
              onChange={(e) => update(i, { value: e.currentTarget.value })} />
            <Select w={150} label={t('settings.sso.mappedRole', { n: i + 1 })} data={roles} value={row.role} allowDeselect={false}
              onChange={(v) => update(i, { role: (v ?? 'viewer') as MappingRow['role'] })} />
            <ActionIcon variant="subtle" color="red" size="lg" mb={2} aria-label={t('settings.sso.removeMapping', { n: i + 1 })}
              onClick={() => onChange(value.filter((_, j) => j !== i))}>×</ActionIcon>
          </Group>
        ))}
        <Group>
          <Button size="compact-sm" variant="light" onClick={() => onChange([...value, { value: '', role: 'viewer' }])}>
            {t('settings.sso.addMapping')}
          </Button>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
