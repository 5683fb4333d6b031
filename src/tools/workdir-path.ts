import fs from 'node:fs/promises';
import path from 'node:path';
import { HoldfastError } from '../errors.js';

export class PathOutsideWorkdirError extends HoldfastError {
  readonly code = 'path_outside_workdir';
}

/**
 * Resolves `requested` inside the workdir, following symlinks: `..`, absolute paths elsewhere and links
 * that point out are all refused, since the real path is what gets read.
 */
export async function resolveInWorkdir(workdir: string, requested: string): Promise<string> {
  const root = await fs.realpath(workdir);
  const candidate = path.resolve(root, requested);
  if (!isInside(root, candidate)) {
    throw new PathOutsideWorkdirError(`${requested} is outside the working directory`);
  }
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new PathOutsideWorkdirError(`${requested} does not exist in the working directory`);
    }
    throw error;
  }
  if (!isInside(root, real)) {
    throw new PathOutsideWorkdirError(`${requested} links outside the working directory`);
  }
  return real;
}

/** `..notes` is a name inside the root; only `..` itself or `../…` leaves it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The confined path, or the refusal as a value so a tool can hand its message to the model. */
export async function confinedPath(
  workdir: string,
  requested: string,
): Promise<string | PathOutsideWorkdirError> {
  try {
    return await resolveInWorkdir(workdir, requested);
  } catch (error) {
    if (error instanceof PathOutsideWorkdirError) return error;
    throw error;
  }
}
