export {
  type LocalIssuer,
  loadOrCreateLocalIssuer,
  localIssuerFile,
  localIssuerFileFromEnv,
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
