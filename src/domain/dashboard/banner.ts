/**
 * The health banner, a pure function of what readiness says of this process's components and of
 * the open system problems: an unhealthy component is a critical item `readiness.<component>`
 * with a fixed message (never the probe's detail: the banner is for every member, and a detail
 * may name what only admins should see); an open problem is an item with its kind as code and its
 * stored message. Items: critical first, then the oldest first (a readiness item, known only as of
 * now, after the problems of its severity), then by code. The level is the worst item's severity,
 * ok when there is none.
 */
import type { ComponentStatus } from '../health/readiness.js';
import type { Banner, BannerItem, OpenProblem } from './model.js';

/** What members read for an unhealthy readiness component; others get a generic sentence. */
const COMPONENT_MESSAGES: Readonly<Record<string, string>> = {
  store: 'The internal database does not answer.',
  migrations: 'The internal database is not up to date with this version.',
  scheduler: 'The scheduler has not completed a tick recently: scheduled runs may be late.',
  redis: 'The queue service (Redis) does not answer: runs and events may be delayed.',
  gitops: 'The configuration directory could not be applied in the last attempts.',
};

export function componentMessage(component: string): string {
  return COMPONENT_MESSAGES[component] ?? `The ${component} component is unhealthy.`;
}

const SEVERITY_RANK = { critical: 0, warning: 1 } as const;

function compareItems(a: BannerItem, b: BannerItem): number {
  const bySeverity = SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
  if (bySeverity !== 0) return bySeverity;
  const at = a.since?.getTime() ?? Number.POSITIVE_INFINITY;
  const bt = b.since?.getTime() ?? Number.POSITIVE_INFINITY;
  if (at !== bt) return at < bt ? -1 : 1;
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

export function bannerOf(
  components: Readonly<Record<string, ComponentStatus | undefined>>, problems: readonly OpenProblem[],
): Banner {
  const items: BannerItem[] = [];
  for (const [name, status] of Object.entries(components)) {
    if (status?.status !== 'unhealthy') continue;
    items.push({ code: `readiness.${name}`, severity: 'critical', message: componentMessage(name), since: null });
  }
  for (const p of problems) items.push({ code: p.kind, severity: p.severity, message: p.message, since: p.openedAt });
  items.sort(compareItems);
  const level = items.length === 0 ? 'ok' : items[0]!.severity;
  return { level, items };
}
