/** The form an email address is stored and looked up in: trimmed, lower case (so `Ann@X.com ` finds `ann@x.com`). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
