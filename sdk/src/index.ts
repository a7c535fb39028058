export { GatehouseVerifier } from './verifier';
export type { FetchLike, GatehouseVerifierOptions } from './verifier';
export type { PolicyOptions } from './core';
export { GatehouseError, GatehouseConfigurationError, GatehouseRefusedError } from './errors';
export type { ConfigurationErrorCode } from './errors';
export { MAX_NONCE_LENGTH } from './checks';
export { VERSION } from './version';
export type * from './types';
