/**
 * A form drawn from a plugin's JSON Schema (GET /plugins: settings_schema, or a channel's
 * delivery_schema), labelled with the plugin's own translations: strings, numbers, booleans,
 * enums, lists of strings, nested objects, name/value maps; required fields marked, descriptions
 * as help. Secret fields (x-secret) go through SecretField. The form holds the values as the API
 * shows them; send `valueToSend(schema, value)` (schema-form.ts), which leaves untouched secrets
 * out. Errors are the problem's errors[] by field path (`settings.url`), with `errorPrefix`.
 */
import { Checkbox, Fieldset, JsonInput, MultiSelect, NumberInput, PasswordInput, Select, Stack, TagsInput, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useI18n, useT } from '../i18n';
import { fieldsOf, humanize, isConfigured, type JsonSchema, type SchemaField } from './schema-form';
import { SecretField } from './SecretField';
import { KeyValueInput } from './KeyValueInput';

export type { JsonSchema };

/** A plugin's labels in the user's language over its English ones (translations of GET /plugins). */
export function pluginTexts(translations: Record<string, Record<string, string>> | undefined, language: string): Record<string, string> {
  return { ...(translations?.en ?? {}), ...(translations?.[language] ?? {}) };
}

/** The plugin's labels in the user's language. */
export function usePluginTexts(translations: Record<string, Record<string, string>> | undefined): Record<string, string> {
  const { language } = useI18n();
  return pluginTexts(translations, language);
}

export interface PluginSettingsFormProps {
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  /** The plugin's labels in the user's language (usePluginTexts). */
  texts?: Record<string, string>;
  /** The translations' key prefix: `settings` (settings_schema) or `delivery` (delivery_schema). */
  textPrefix?: string;
  /** Field errors by path, as fieldErrors() gives them. */
  errors?: Record<string, string>;
  /** The path of these settings in the request body (`settings`), so `settings.url` finds `url`. */
  errorPrefix?: string;
  disabled?: boolean;
}

interface FieldProps {
  field: SchemaField;
  path: string;
  value: unknown;
  onChange: (v: unknown) => void;
  ctx: Required<Pick<PluginSettingsFormProps, 'texts' | 'textPrefix' | 'errors'>> & { errorPrefix: string; disabled: boolean; stored: Set<string> };
}

const asString = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

function SchemaInput({ field, path, value, onChange, ctx }: FieldProps) {
  const t = useT();
  const { schema, kind, required } = field;
  const label = ctx.texts[`${ctx.textPrefix}.${path}.label`] ?? schema.title ?? humanize(field.name);
  const description = ctx.texts[`${ctx.textPrefix}.${path}.help`] ?? schema.description;
  const error = ctx.errors[ctx.errorPrefix ? `${ctx.errorPrefix}.${path}` : path];
  const common = { label, description, error, withAsterisk: required, disabled: ctx.disabled };
  const optionLabel = (o: unknown) => ctx.texts[`${ctx.textPrefix}.${path}.options.${String(o)}`] ?? String(o);
  switch (kind) {
    case 'secret':
    case 'secretMap':
      return (
        <SecretField label={label} description={description} error={error} required={required} disabled={ctx.disabled}
          shape={kind === 'secretMap' ? 'map' : 'text'} value={value} onChange={onChange}
          onKeep={ctx.stored.has(path) ? () => onChange({ configured: true }) : undefined} />
      );
    case 'enum':
      return (
        <Select {...common} data={(schema.enum ?? []).filter((o) => o !== null).map((o) => ({ value: String(o), label: optionLabel(o) }))}
          value={value === undefined || value === null ? null : String(value)} clearable={!required} allowDeselect={!required}
          onChange={(v) => onChange(v ?? undefined)} />
      );
    case 'password':
      return <PasswordInput {...common} autoComplete="new-password" value={asString(value)} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'number':
    case 'integer':
      return (
        <NumberInput {...common} allowDecimal={kind === 'number'} min={schema.minimum} max={schema.maximum}
          value={typeof value === 'number' ? value : ''} onChange={(v) => onChange(typeof v === 'number' ? v : undefined)} />
      );
    case 'boolean':
      return (
        <Checkbox label={label} description={description} error={error} disabled={ctx.disabled}
          checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />
      );
    case 'stringList':
      return (
        <TagsInput {...common} splitChars={[',', ' ']} acceptValueOnBlur clearable
          placeholder={t('pluginSettings.listPlaceholder')} maxTags={schema.maxItems}
          value={Array.isArray(value) ? value.map(String) : []} onChange={(v) => onChange(v)} />
      );
    case 'enumList':
      return (
        <MultiSelect {...common} data={(schema.items?.enum ?? []).map((o) => ({ value: String(o), label: optionLabel(o) }))}
          value={Array.isArray(value) ? value.map(String) : []} onChange={(v) => onChange(v)} />
      );
    case 'object':
      return (
        <Fieldset legend={label} disabled={ctx.disabled}>
          <Stack gap="sm">
            {fieldsOf(schema).map((f) => (
              <SchemaInput key={f.name} field={f} path={`${path}.${f.name}`} ctx={ctx}
                value={(value as Record<string, unknown> | undefined)?.[f.name]}
                onChange={(v) => onChange({ ...((value as Record<string, unknown> | undefined) ?? {}), [f.name]: v })} />
            ))}
          </Stack>
        </Fieldset>
      );
    case 'map':
      return (
        <KeyValueInput label={label} description={description} error={error} required={required} disabled={ctx.disabled}
          value={(value as Record<string, string> | undefined) ?? {}} onChange={onChange} />
      );
    case 'json':
      return <JsonField common={common} value={value} onChange={onChange} />;
    default:
      return <TextInput {...common} value={asString(value)} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}

/** Any other shape as JSON text, parsed when it reads as JSON. */
function JsonField({ common, value, onChange }: { common: { label: string; description?: string | undefined; error?: string | undefined; withAsterisk: boolean; disabled: boolean }; value: unknown; onChange: (v: unknown) => void }) {
  const t = useT();
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  return (
    <JsonInput {...common} formatOnBlur autosize minRows={2} validationError={t('pluginSettings.invalidJson')} value={text}
      onChange={(v) => {
        setText(v);
        try { onChange(v.trim() === '' ? undefined : JSON.parse(v)); } catch { /* not JSON yet: keep the last value */ }
      }} />
  );
}

export function PluginSettingsForm({ schema, value, onChange, texts = {}, textPrefix = 'settings', errors = {}, errorPrefix = '', disabled = false }: PluginSettingsFormProps) {
  // The secrets stored when the form opened: while a new one is typed, keeping the old one is offered.
  const [stored] = useState(() => new Set(Object.entries(value).filter(([, v]) => isConfigured(v)).map(([k]) => k)));
  const ctx = { texts, textPrefix, errors, errorPrefix, disabled, stored };
  const fields = fieldsOf(schema);
  if (fields.length === 0) return null;
  return (
    <Stack gap="sm">
      {fields.map((f) => (
        <SchemaInput key={f.name} field={f} path={f.name} ctx={ctx} value={value[f.name]}
          onChange={(v) => onChange({ ...value, [f.name]: v })} />
      ))}
    </Stack>
  );
}
