import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorCode } from './app-error';

function firstProblem(
  errors: ValidationError[],
  prefix = '',
): { property: string; message: string } | null {
  for (const error of errors) {
    const property = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = Object.values(error.constraints ?? {});
    if (constraints.length > 0) return { property, message: constraints[0] };
    const nested = firstProblem(error.children ?? [], property);
    if (nested) return nested;
  }
  return null;
}

/** The global pipe: DTO validation errors become a 400 that names the parameter. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: false,
    forbidUnknownValues: false,
    validateCustomDecorators: true,
    exceptionFactory: (errors) => {
      const problem = firstProblem(errors);
      if (!problem) return new AppError(400, ErrorCode.invalidParameter, 'Invalid parameters');
      const missing = /should not be empty|must be defined|should not be null or undefined/.test(
        problem.message,
      );
      return new AppError(
        400,
        missing ? ErrorCode.missingParameter : ErrorCode.invalidParameter,
        missing
          ? `Missing required parameter: ${problem.property}`
          : `Invalid parameter ${problem.property}: ${problem.message}`,
      );
    },
  });
}
