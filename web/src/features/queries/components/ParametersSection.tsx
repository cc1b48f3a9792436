/**
 * The parameters the SQL refers to as `{{ name }}`: each declared with a type, a default, whether
 * it is required and a description. Placeholders without a declaration are offered for declaring,
 * declarations the SQL does not use are marked; the API decides what is valid.
 */
import { ActionIcon, Badge, Button, Checkbox, Fieldset, Group, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useT } from '../../../i18n';
import { PARAMETER_TYPES, parameterDraft, type ParameterDraft, type QueryDraft } from '../utils/draft';
import { parameterUse } from '../utils/placeholders';
import { ValueInput } from './ValueInput';

interface Props {
  draft: QueryDraft;
  onChange: (patch: Partial<QueryDraft>) => void;
  readOnly: boolean;
  errors: Record<string, string>;
}

export function ParametersSection({ draft, onChange, readOnly, errors }: Props) {
  const t = useT();
  const { undeclared, unused } = parameterUse(draft.sql, draft.parameters.map((p) => p.name.trim()));
  const set = (key: string, patch: Partial<ParameterDraft>) =>
    onChange({ parameters: draft.parameters.map((p) => (p.key === key ? { ...p, ...patch } : p)) });
  const add = (name: string) => onChange({ parameters: [...draft.parameters, parameterDraft({ name })] });
  const remove = (key: string) => onChange({ parameters: draft.parameters.filter((p) => p.key !== key) });
  const types = PARAMETER_TYPES.map((type) => ({ value: type, label: t(`queries.type.${type}`) }));

  return (
    <section aria-labelledby="query-parameters">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="query-parameters">{t('queries.parameters')}</Title>
        {!readOnly && <Button size="xs" variant="light" onClick={() => add('')}>{t('queries.addParameter')}</Button>}
      </Group>
      {errors.parameters && <Text c="red" size="sm" role="alert">{errors.parameters}</Text>}
      {undeclared.length > 0 && (
        <Group gap="xs" mb="sm" role="status">
          <Text size="sm">{t('queries.undeclared')}</Text>
          {undeclared.map((name) => readOnly
            ? <Badge key={name} variant="dot" color="orange">{name}</Badge>
            : <Button key={name} size="compact-xs" variant="light" onClick={() => add(name)}>{t('queries.declare', { name })}</Button>)}
        </Group>
      )}
      {draft.parameters.length === 0 && undeclared.length === 0 && <Text size="sm" c="dimmed">{t('queries.noParameters')}</Text>}
      <Stack gap="sm">
        {draft.parameters.map((p, i) => {
          const name = p.name.trim();
          const err = (field: string) => errors[`parameters.${i}.${field}`];
          return (
            <Fieldset key={p.key} legend={name ? t('queries.parameterNamed', { name }) : t('queries.parameterNew', { number: i + 1 })} p="sm">
              {name && unused.includes(name) && <Badge color="gray" variant="dot" mb="xs" tt="none">{t('queries.unused')}</Badge>}
              <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm">
                <TextInput label={t('queries.parameterName')} required readOnly={readOnly} value={p.name} error={err('name')}
                  onChange={(e) => set(p.key, { name: e.currentTarget.value })} />
                <Select label={t('queries.parameterType')} readOnly={readOnly} data={types} value={p.type} allowDeselect={false} error={err('type')}
                  onChange={(value) => value && set(p.key, { type: value as ParameterDraft['type'], default: '' })} />
                <ValueInput label={t('queries.parameterDefault')} type={p.type} value={p.default} readOnly={readOnly} error={err('default')}
                  onChange={(value) => set(p.key, { default: value })} />
                <TextInput label={t('queries.parameterDescription')} readOnly={readOnly} value={p.description} error={err('description')}
                  onChange={(e) => set(p.key, { description: e.currentTarget.value })} />
              </SimpleGrid>
              <Group justify="space-between" mt="xs">
                <Checkbox label={t('queries.parameterRequired')} checked={p.required} disabled={readOnly} error={err('required')}
                  onChange={(e) => set(p.key, { required: e.currentTarget.checked })} />
                {!readOnly && (
                  <ActionIcon variant="subtle" color="gray" aria-label={t('queries.removeParameter', { name: name || String(i + 1) })} onClick={() => remove(p.key)}>
                    <span aria-hidden="true">✕</span>
                  </ActionIcon>
                )}
              </Group>
            </Fieldset>
          );
        })}
      </Stack>
    </section>
  );
}
