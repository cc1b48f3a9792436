/**
 * What a save answered, beside the Save button: "Saved", or the problem. A 409 conflict.version
 * says someone changed the settings meanwhile, with Reload (the form starts again from theirs).
 */
import { Alert, Button, Group, Text } from '@mantine/core';
import { problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

export function SaveFeedback({ error, saved, onReload }: { error: unknown; saved: boolean; onReload: () => void }) {
  const t = useT();
  if (error && problemCode(error) === 'conflict.version') {
    return (
      <Alert color="yellow" role="alert" title={t('settings.changedMeanwhile.title')}>
        <Group justify="space-between">
          <Text size="sm">{t('app.changedMeanwhile')}</Text>
          <Button size="xs" variant="light" onClick={onReload}>{t('app.reload')}</Button>
        </Group>
      </Alert>
    );
  }
  if (error) return <ProblemAlert error={error} />;
  if (saved) return <Text role="status" size="sm" fw={500}>{t('settings.saved')}</Text>;
  return null;
}

/** The section's heading (h2 under the page's h1) and a line about it. */
export function SectionTitle({ title, intro }: { title: string; intro?: string }) {
  return (
    <div>
      <Text component="h2" fw={700} size="lg" m={0}>{title}</Text>
      {intro && <Text size="sm" c="dimmed">{intro}</Text>}
    </div>
  );
}

/** When the settings were last changed. */
export function LastChanged({ at }: { at: string | null }) {
  const t = useT();
  // Settings never saved have no time (updated_at null): nothing is shown.
  if (at === null) return null;
  return <Text size="xs" c="dimmed">{t('settings.lastChanged')} <Time value={at} /></Text>;
}
