import { type JsonValue, jsonValueSchema, type KvSnapshot } from '../store/kv-snapshot.js';

export { emptyKvSnapshot, type JsonValue, type KvSnapshot, kvSnapshotSchema } from '../store/kv-snapshot.js';

/**
 * Plugin state for one agent (`ctx.kv`). It lives in memory during a turn and is snapshotted into the
 * approval row when the turn suspends, so a resume in another process gets it back (invariant 5).
 * Nested agents get their own scope through `child(name)`, snapshotted inside the parent's.
 */
export class KeyValueState {
  readonly #values = new Map<string, unknown>();
  readonly #children = new Map<string, KeyValueState>();

  static restore(snapshot: KvSnapshot | undefined): KeyValueState {
    const state = new KeyValueState();
    if (!snapshot) return state;
    for (const [key, value] of Object.entries(snapshot.values)) state.#values.set(key, value);
    for (const [name, child] of Object.entries(snapshot.children)) {
      state.#children.set(name, KeyValueState.restore(child));
    }
    return state;
  }

  get<T = unknown>(key: string): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.#values.set(key, value);
  }

  delete(key: string): boolean {
    return this.#values.delete(key);
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }

  child(name: string): KeyValueState {
    let child = this.#children.get(name);
    if (!child) {
      child = new KeyValueState();
      this.#children.set(name, child);
    }
    return child;
  }

  /** JSON-safe copy. Values that do not survive a JSON round trip (functions, sockets, cycles) are dropped. */
  snapshot(): KvSnapshot {
    const values: Record<string, JsonValue> = {};
    for (const [key, value] of this.#values) {
      const json = toJsonValue(value);
      if (json !== undefined) values[key] = json;
    }
    const children: Record<string, KvSnapshot> = {};
    for (const [name, child] of this.#children) children[name] = child.snapshot();
    return { values, children };
  }
}

function toJsonValue(value: unknown): JsonValue | undefined {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return undefined;
    const parsed = jsonValueSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Cycles and BigInts cannot be snapshotted; dropping them is the documented contract.
    return undefined;
  }
}
