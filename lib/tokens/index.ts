export {
  type LocalIssuer,
  loadOrCreateLocalIssuer,
  localIssuerFile,
  /** @internal the token CLI imports local-issuer itself (no verifier at its start); tests use these here. */
  localIssuerFileFromEnv,
  /** @internal as above */
  readLocalIssuer,
  signAccessToken,
} from './local-issuer';
export {
  createUserTokenVerifier,
  readUserTokenConfig,
  type TokenUser,
  type UserTokenConfig,
  type VerifyUserToken,
} from './verifier';
