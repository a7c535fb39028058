/** This package's version (sdk/test/package.spec.ts checks it against package.json). */
export const VERSION = '0.1.0';
