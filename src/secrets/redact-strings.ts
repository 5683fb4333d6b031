/** Every string inside a JSON-shaped value (a Block Kit payload, a view), redacted; the shape is kept. */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') return redact(item);
    if (Array.isArray(item)) return item.map(visit);
    if (typeof item === 'object' && item !== null) {
      return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, visit(child)]));
    }
    return item;
  };
  return visit(value) as T;
}
