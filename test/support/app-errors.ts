import type { AppError } from '../../src/common/app-error';

/** What an AppError says (docs/api.md, "Errors"): its status, code and message. */
export interface ErrorParts {
  status: number;
  code: number;
  message: string;
}

/** The AppError that `run` throws; fails the test when it throws none. */
export function errorOf(run: () => unknown): ErrorParts {
  try {
    run();
  } catch (error) {
    const e = error as AppError;
    return { status: e.status, code: e.code, message: e.message };
  }
  throw new Error('expected an AppError');
}
