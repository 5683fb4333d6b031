/**
 * `target` with some members replaced. Every other member is read from `target` itself, and its methods
 * are bound to it, so a class with private fields (a store adapter, a plugin's tool) keeps working.
 */
export function withOverrides<Target extends object>(target: Target, overrides: Partial<Target>): Target {
  return new Proxy(target, {
    get(object, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof Target];
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
