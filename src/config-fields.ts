import { z } from 'zod';
import { parseDuration } from './approvals/policy.js';

/**
 * The field builders of the environment schema: each turns one variable's text (or its absence) into a
 * typed value, or an issue that says what was expected.
 */
export const optionalText = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === '' ? undefined : value))
  .optional();

export const list = (item: z.ZodString, what: string) =>
  z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(/[\s,]+/).filter(Boolean))
    .pipe(z.array(item.describe(what)));

export const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? String(fallback) : value.trim()))
    .pipe(z.string().regex(/^\d+$/, 'a whole number'))
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const duration = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? fallback : value.trim()))
    .pipe(z.string().regex(/^\d+\s*(ms|s|m|h|d)$/, 'a duration such as 90s, 30m, 24h or 7d'))
    .transform(parseDuration);

export const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** `on` or `off`, any case; unset or blank is `fallback`. */
export const onOff = (fallback: 'on' | 'off') =>
  z
    .string()
    .optional()
    .transform((value) => (value ?? fallback).trim().toLowerCase() || fallback)
    .pipe(z.enum(['on', 'off']));

export const url = z.url({ protocol: /^https?$/, error: 'an http(s) URL' });
