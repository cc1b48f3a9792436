/**
 * The end of an infinite list: loads the next page when it scrolls into view, and offers the same
 * as a button for keyboards and screen readers (and when the observer is not there).
 */
import { useEffect, useRef } from 'react';
import { Button, Center, Text } from '@mantine/core';
import { useT } from '../i18n';
import { Loading } from './Loading';

export function InfiniteSentinel({ hasNext, loading, onMore, endText }: {
  hasNext: boolean; loading: boolean; onMore: () => void; endText?: string;
}) {
  const t = useT();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = ref.current;
    if (!node || !hasNext || loading || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) onMore(); }, { rootMargin: '200px' });
    observer.observe(node);
    return () => observer.disconnect();
  }, [hasNext, loading, onMore]);
  if (!hasNext && !loading && !endText) return null;
  return (
    <Center ref={ref} py="md" data-testid="list-end">
      {loading ? <Loading size="sm" />
        : hasNext ? <Button variant="subtle" onClick={onMore}>{t('app.loadMore')}</Button>
          : endText ? <Text size="sm" c="dimmed">{endText}</Text> : null}
    </Center>
  );
}
