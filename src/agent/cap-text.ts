/** Long text cut to `limit` characters, saying so, so whoever reads it knows it is not the whole. */
export function capText(text: string, limit: number, whose: string): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[… cut: ${whose} produced ${text.length} characters; only the first ${limit} are kept.]`;
}
