import type { components } from './api/schema';

export type Role = components['schemas']['MeDto']['role'];
export type Me = components['schemas']['MeDto'];

/**
 * What each role may do, as the role columns of docs/API.md, "JWT endpoints", grant it: the dashboard shows only what the person may
 * do; the server still decides every request.
 */
export const can = {
  manageKeys: (role: Role) => role !== 'ANALYST',
  manageWebhooks: (role: Role) => role !== 'ANALYST',
  manageTeam: (role: Role) => role === 'OWNER' || role === 'ADMIN',
  editAccount: (role: Role) => role === 'OWNER' || role === 'ADMIN',
  changePlan: (role: Role) => role === 'OWNER',
  deleteAccount: (role: Role) => role === 'OWNER',
  readAudit: (role: Role) => role === 'OWNER' || role === 'ADMIN',
};

/** What each role may do, in a line, for people choosing or reading a role. */
export const ROLE_SUMMARY: Readonly<Record<Role, string>> = {
  OWNER: 'Everything, including the plan, deleting the account and managing owners.',
  ADMIN: 'The team (except owners), API keys, account settings and the audit log; not the plan or deleting the account.',
  DEVELOPER: 'API keys, webhooks and analytics.',
  ANALYST: 'Analytics: the traffic, not the keys.',
};
