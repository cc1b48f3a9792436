/**
 * A feature (one folder per contract tag under features/) declares what it adds to the app in
 * features/<tag>/feature.tsx: its routes (pages loaded lazily, one chunk each), its navigation
 * entries with the least role that may see them, and parts of the header. The app collects every
 * feature.tsx with import.meta.glob: adding a feature edits no shared file.
 */
import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import type { Role } from '../api/session';

export interface NavItem {
  to: string;
  /** i18n key of the label. */
  label: string;
  /** The least role that sees the entry (the API decides anyway). */
  min: Role;
  /** Position in the navigation (lower first). */
  order: number;
  section: 'main' | 'admin';
}

export interface Feature {
  /** Pages inside the signed-in shell. */
  routes?: RouteObject[];
  /** Pages without a session (sign-in, setup, password reset). */
  publicRoutes?: RouteObject[];
  nav?: NavItem[];
  /** Small parts of the header, right-aligned before the user menu (the notifications bell). */
  header?: Array<{ order: number; component: ComponentType }>;
}

const modules = import.meta.glob<{ feature: Feature }>('../features/*/feature.tsx', { eager: true });
export const features: Feature[] = Object.values(modules).map((m) => m.feature);
