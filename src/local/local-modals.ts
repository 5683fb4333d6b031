import { randomBytes } from 'node:crypto';

/** A modal open in front of one person, as `views.open` or `views.update` last set it. */
export interface LocalModal {
  readonly id: string;
  readonly user: string;
  readonly view: Readonly<Record<string, unknown>>;
}

/**
 * The modals of the local workspace. Slack keeps at most a stack per person; holdfast never stacks, so one
 * per person is enough. Kept in memory: a modal does not outlive the page that shows it in Slack either.
 */
export class LocalModals {
  readonly #byUser = new Map<string, LocalModal>();
  #counter = 0;

  open(user: string, view: Readonly<Record<string, unknown>>): LocalModal {
    this.#counter += 1;
    const modal = { id: `VLOCAL${String(this.#counter).padStart(6, '0')}`, user, view };
    this.#byUser.set(user, modal);
    return modal;
  }

  update(viewId: string, view: Readonly<Record<string, unknown>>): LocalModal | undefined {
    for (const modal of this.#byUser.values()) {
      if (modal.id !== viewId) continue;
      const updated = { ...modal, view };
      this.#byUser.set(modal.user, updated);
      return updated;
    }
    return undefined;
  }

  of(user: string): LocalModal | undefined {
    return this.#byUser.get(user);
  }

  close(user: string, viewId?: string): void {
    if (viewId === undefined || this.#byUser.get(user)?.id === viewId) this.#byUser.delete(user);
  }
}

/**
 * A trigger id for an interaction by `user`. Slack's are opaque; the local one names the person, so
 * `views.open` knows in front of whom to open the modal.
 */
export function triggerIdFor(user: string, nowMs: number): string {
  return `${Math.floor(nowMs / 1000)}.${user}.${randomBytes(6).toString('hex')}`;
}

export function userOfTrigger(triggerId: string): string | undefined {
  const [, user] = triggerId.split('.');
  return user || undefined;
}
