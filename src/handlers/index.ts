/**
 * The typed map operationId → handler. Every operation of openapi.yaml must appear here, either
 * with its handler or as NOT_IMPLEMENTED (answers 501 not_implemented) until its issue lands.
 */
import { NOT_IMPLEMENTED, type HandlerMap } from './types.js';
import { operationIds, type OperationId } from '../generated/operations.js';
import type { ApiServices } from './services.js';
import { getLiveness } from './health/get-liveness.js';
import { getReadiness } from './health/get-readiness.js';
import { getMetrics } from './metrics/get-metrics.js';
import { getAbout } from './system/get-about.js';
import { createApiKey } from './api-keys/create-api-key.js';
import { listApiKeys } from './api-keys/list-api-keys.js';
import { revokeApiKey } from './api-keys/revoke-api-key.js';
import { confirmPasswordReset } from './auth/confirm-password-reset.js';
import { login } from './auth/login.js';
import { logout } from './auth/logout.js';
import { requestPasswordReset } from './auth/request-password-reset.js';
import { changeMyPassword } from './me/change-my-password.js';
import { getMe } from './me/get-me.js';
import { listMySessions } from './me/list-my-sessions.js';
import { revokeAllMySessions } from './me/revoke-all-my-sessions.js';
import { revokeMySession } from './me/revoke-my-session.js';
import { updateMe } from './me/update-me.js';
import { listSecurityEvents } from './security-events/list-security-events.js';
import { getSetupStatus } from './setup/get-setup-status.js';
import { runSetup } from './setup/run-setup.js';
import { createUser } from './users/create-user.js';
import { getUser } from './users/get-user.js';
import { listUsers } from './users/list-users.js';
import { resetUserPassword } from './users/reset-user-password.js';
import { updateUser } from './users/update-user.js';

export function buildHandlers(s: ApiServices): HandlerMap {
  return {
    exportConfig: NOT_IMPLEMENTED,
    importConfig: NOT_IMPLEMENTED,
    detachManagedResource: NOT_IMPLEMENTED,
    attachManagedResource: NOT_IMPLEMENTED,
    getAiStatus: NOT_IMPLEMENTED,
    generateWithAi: NOT_IMPLEMENTED,
    getLiveness: getLiveness(),
    getReadiness: getReadiness(s),
    getMetrics: getMetrics(s),
    getSetupStatus: getSetupStatus(s),
    runSetup: runSetup(s),
    login: login(s),
    loginSecondFactor: NOT_IMPLEMENTED,
    startSecondFactorPasskey: NOT_IMPLEMENTED,
    startPasskeyLogin: NOT_IMPLEMENTED,
    finishPasskeyLogin: NOT_IMPLEMENTED,
    startOidcLogin: NOT_IMPLEMENTED,
    finishOidcLogin: NOT_IMPLEMENTED,
    requestPasswordReset: requestPasswordReset(s),
    confirmPasswordReset: confirmPasswordReset(s),
    logout: logout(s),
    getMe: getMe(s),
    updateMe: updateMe(s),
    changeMyPassword: changeMyPassword(s),
    listMySessions: listMySessions(s),
    revokeMySession: revokeMySession(s),
    revokeAllMySessions: revokeAllMySessions(s),
    startTotpSetup: NOT_IMPLEMENTED,
    confirmTotpSetup: NOT_IMPLEMENTED,
    disableMyTwoFactor: NOT_IMPLEMENTED,
    regenerateRecoveryCodes: NOT_IMPLEMENTED,
    listMyPasskeys: NOT_IMPLEMENTED,
    addMyPasskey: NOT_IMPLEMENTED,
    startPasskeyRegistration: NOT_IMPLEMENTED,
    renameMyPasskey: NOT_IMPLEMENTED,
    removeMyPasskey: NOT_IMPLEMENTED,
    listUsers: listUsers(s),
    createUser: createUser(s),
    getUser: getUser(s),
    updateUser: updateUser(s),
    resetUserPassword: resetUserPassword(s),
    disableUserTwoFactor: NOT_IMPLEMENTED,
    listApiKeys: listApiKeys(s),
    createApiKey: createApiKey(s),
    revokeApiKey: revokeApiKey(s),
    getSettings: NOT_IMPLEMENTED,
    updateSettings: NOT_IMPLEMENTED,
    getOidcSettings: NOT_IMPLEMENTED,
    replaceOidcSettings: NOT_IMPLEMENTED,
    testOidcSettings: NOT_IMPLEMENTED,
    getAlertSettings: NOT_IMPLEMENTED,
    replaceAlertSettings: NOT_IMPLEMENTED,
    getAiSettings: NOT_IMPLEMENTED,
    replaceAiSettings: NOT_IMPLEMENTED,
    testAiSettings: NOT_IMPLEMENTED,
    listSecurityEvents: listSecurityEvents(s),
    getAbout: getAbout(s),
    getStorage: NOT_IMPLEMENTED,
    listPlugins: NOT_IMPLEMENTED,
    listConnections: NOT_IMPLEMENTED,
    createConnection: NOT_IMPLEMENTED,
    testConnectionSettings: NOT_IMPLEMENTED,
    getConnection: NOT_IMPLEMENTED,
    updateConnection: NOT_IMPLEMENTED,
    deleteConnection: NOT_IMPLEMENTED,
    testConnection: NOT_IMPLEMENTED,
    getConnectionSchema: NOT_IMPLEMENTED,
    refreshConnectionSchema: NOT_IMPLEMENTED,
    listQueries: NOT_IMPLEMENTED,
    createQuery: NOT_IMPLEMENTED,
    previewQuery: NOT_IMPLEMENTED,
    getQuery: NOT_IMPLEMENTED,
    updateQuery: NOT_IMPLEMENTED,
    deleteQuery: NOT_IMPLEMENTED,
    listQueryVersions: NOT_IMPLEMENTED,
    getQueryVersion: NOT_IMPLEMENTED,
    restoreQueryVersion: NOT_IMPLEMENTED,
    listChannels: NOT_IMPLEMENTED,
    createChannel: NOT_IMPLEMENTED,
    testChannelSettings: NOT_IMPLEMENTED,
    getChannel: NOT_IMPLEMENTED,
    updateChannel: NOT_IMPLEMENTED,
    deleteChannel: NOT_IMPLEMENTED,
    testChannel: NOT_IMPLEMENTED,
    retryFailedChannelDeliveries: NOT_IMPLEMENTED,
    listLinks: NOT_IMPLEMENTED,
    createLink: NOT_IMPLEMENTED,
    getLink: NOT_IMPLEMENTED,
    revokeLink: NOT_IMPLEMENTED,
    downloadSharedLink: NOT_IMPLEMENTED,
    listReports: NOT_IMPLEMENTED,
    createReport: NOT_IMPLEMENTED,
    getReport: NOT_IMPLEMENTED,
    updateReport: NOT_IMPLEMENTED,
    deleteReport: NOT_IMPLEMENTED,
    pauseReport: NOT_IMPLEMENTED,
    resumeReport: NOT_IMPLEMENTED,
    runReport: NOT_IMPLEMENTED,
    previewSchedule: NOT_IMPLEMENTED,
    listDeliveries: NOT_IMPLEMENTED,
    createDelivery: NOT_IMPLEMENTED,
    replaceDelivery: NOT_IMPLEMENTED,
    deleteDelivery: NOT_IMPLEMENTED,
    previewDelivery: NOT_IMPLEMENTED,
    testDeliverReport: NOT_IMPLEMENTED,
    listRuns: NOT_IMPLEMENTED,
    getRun: NOT_IMPLEMENTED,
    cancelRun: NOT_IMPLEMENTED,
    retryDeliveryAttempt: NOT_IMPLEMENTED,
    getRunResult: NOT_IMPLEMENTED,
    listNotifications: NOT_IMPLEMENTED,
    markAllNotificationsRead: NOT_IMPLEMENTED,
    markNotificationRead: NOT_IMPLEMENTED,
    getDashboard: NOT_IMPLEMENTED,
    streamEvents: NOT_IMPLEMENTED,
  };
}

/** What the probe listener (SVC_PROBE_LISTEN) of any process answers: its probes and metrics. */
export const PROBE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>(['getLiveness', 'getReadiness', 'getMetrics']);

export function buildProbeHandlers(s: Pick<ApiServices, 'readiness' | 'registry' | 'metricsToken'>): HandlerMap {
  const none = Object.fromEntries(operationIds.map((id) => [id, NOT_IMPLEMENTED])) as HandlerMap;
  return { ...none, getLiveness: getLiveness(), getReadiness: getReadiness(s), getMetrics: getMetrics(s) };
}
