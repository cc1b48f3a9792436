/** An import's plan (or what it applied): the counts, then each resource with its action and the fields that change. */
import { useState } from 'react';
import { Badge, Group, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useT } from '../../../i18n';
import { FieldDiff } from './FieldDiff';

type Result = Schemas['ImportResult'];
type Change = Schemas['ImportChange'];

const ACTION_COLOURS: Record<Change['action'], string> = { create: 'green', update: 'blue', delete: 'red', unchanged: 'gray' };

export function ActionBadge({ action }: { action: Change['action'] }) {
  const t = useT();
  return <Badge color={ACTION_COLOURS[action]} variant="light">{t(`config.action.${action}`)}</Badge>;
}

export function PlanSummary({ summary }: { summary: Result['summary'] }) {
  const t = useT();
  return (
    <Group gap="xs">
      {(['create', 'update', 'delete', 'unchanged'] as const).map((a) => (
        <Badge key={a} color={ACTION_COLOURS[a]} variant="light" size="lg" style={{ textTransform: 'none' }}>
          {t(`config.summary.${a}`, { count: summary[a] })}
        </Badge>
      ))}
    </Group>
  );
}

export function PlanView({ result }: { result: Result }) {
  const t = useT();
  const [showUnchanged, setShowUnchanged] = useState(false);
  const shown = result.changes.filter((c) => showUnchanged || c.action !== 'unchanged');
  return (
    <Stack gap="sm">
      <PlanSummary summary={result.summary} />
      {result.summary.unchanged > 0 && (
        <Switch size="sm" label={t('config.plan.showUnchanged')} checked={showUnchanged} onChange={(e) => setShowUnchanged(e.currentTarget.checked)} />
      )}
      {shown.map((c) => <ChangeCard key={`${c.kind}/${c.name}/${c.action}`} change={c} />)}
      {shown.length === 0 && <Text size="sm">{t('config.plan.nothing')}</Text>}
    </Stack>
  );
}

function ChangeCard({ change }: { change: Change }) {
  const t = useT();
  const title = t('config.plan.changeTitle', { action: t(`config.action.${change.action}`), kind: t(`config.kind.${change.kind}`), name: change.name });
  return (
    <Paper withBorder p="sm" component="section" aria-label={title}>
      <Group gap="xs" mb={change.diff.length > 0 ? 'xs' : 0}>
        <ActionBadge action={change.action} />
        <Title order={3} size="h5">{t(`config.kind.${change.kind}`)} <Text span ff="monospace" inherit>{change.name}</Text></Title>
        {change.document !== null && change.document !== undefined && (
          <Text size="xs" c="dimmed">{t('config.plan.document', { n: change.document + 1 })}</Text>
        )}
      </Group>
      {change.diff.length > 0 && <FieldDiff changes={change.diff} label={t('config.plan.fieldsOf', { name: change.name })} />}
    </Paper>
  );
}
