import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface ServiceUserPoolProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** Cognito threat protection, enforced; needs the Plus feature plan (billed per user). */
  readonly advancedSecurity: boolean;
}

/**
 * The users of connect, systems and self-service keys, and the app client whose access tokens
 * the connect function verifies (`USER_POOL_ID`, `USER_POOL_CLIENT_ID`). Users are created by an
 * administrator (no self sign-up); they sign in with a password, MFA by authenticator app if
 * they turn it on.
 */
export class ServiceUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: ServiceUserPoolProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { username: true, email: true },
      signInCaseSensitive: false,
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: props.advancedSecurity ? FeaturePlan.PLUS : FeaturePlan.LITE,
      ...(props.advancedSecurity
        ? { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION }
        : {}),
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });

    this.client = this.userPool.addClient('ApiClient', {
      // Password sign-in straight against Cognito (the AWS CLI's initiate-auth, an SDK); no
      // hosted UI and no OAuth redirects to configure.
      authFlows: { userPassword: true, userSrp: true },
      disableOAuth: true,
      generateSecret: false,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional by design: users turn on an authenticator app themselves; ' +
        'requiring it would block the API-client sign-in the deploy guide shows.',
    });
    if (!props.advancedSecurity) {
      const reason =
        'Threat protection needs the Plus feature plan, billed per monthly active user; ' +
        'it is one context flag away (advancedSecurity=true, docs/deploy.md).';
      Validations.of(this.userPool).acknowledge({ id: 'AwsSolutions-COG3', reason });
      Validations.of(this.userPool).acknowledge({ id: 'AwsSolutions-COG8', reason });
    }
  }
}
