import type { DecisionInput } from '../store/store.js';

export type DecisionAction = 'allow' | 'deny' | 'always';

/**
 * Where the click came from, as Slack reported it; checked against the row. `inbox` is any surface other
 * than the card itself: an ephemeral `/approvals` reply, the App Home, the full-arguments modal.
 */
export type DecisionOrigin =
  | {
      readonly type: 'card';
      readonly teamId: string;
      readonly enterpriseId: string | undefined;
      readonly channelId: string;
      readonly messageTs: string;
    }
  | { readonly type: 'inbox'; readonly teamId: string; readonly enterpriseId: string | undefined };

export interface DecisionRequest {
  readonly requestId: string;
  readonly userId: string;
  readonly action: DecisionAction;
  readonly origin: DecisionOrigin;
  /** The arguments fingerprint the clicked button carried (see `argsFingerprint`); undefined for none. */
  readonly argsFingerprint: string | undefined;
  /**
   * The Enterprise Grid organisation holdfast is installed in (`auth.test`), undefined outside Grid.
   * Conversations do not record their organisation; one installation serves one organisation, so every
   * request it holds came from this one.
   */
  readonly installationEnterpriseId: string | undefined;
  /** Why, in the decider's words (a denial's reason); kept with the decision. */
  readonly reason?: string;
  /** With `always`: what the grant covers (default: the whole tool in this thread, until revoked). */
  readonly grant?: DecisionInput['grant'];
  /** With `allow`: the arguments as the approver edited them, to allow instead of the proposed ones. */
  readonly edit?: { readonly arguments: unknown };
}
