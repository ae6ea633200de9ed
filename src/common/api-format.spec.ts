import type { Request } from 'express';
import { AppError, ErrorCode } from './app-error';
import { readFormat } from './api-format';

function req(
  format: string | undefined,
  query: Record<string, unknown> = {},
  body?: unknown,
): Request {
  return { params: format === undefined ? {} : { format }, query, body } as unknown as Request;
}

function errorOf(request: Request): AppError {
  try {
    readFormat(request);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('readFormat accepted the request');
}

describe('readFormat', () => {
  it('defaults to json without a format segment', () => {
    expect(readFormat(req(undefined))).toEqual({ format: 'json', callback: null });
  });

  it('accepts json and txt', () => {
    expect(readFormat(req('json'))).toEqual({ format: 'json', callback: null });
    expect(readFormat(req('txt'))).toEqual({ format: 'txt', callback: null });
  });

  it.each(['xml', 'JSON', 'html', ''])('refuses format %j with a 400 naming format', (format) => {
    const error = errorOf(req(format));
    expect(error.status).toBe(400);
    expect(error.code).toBe(ErrorCode.invalidParameter);
    expect(error.message).toBe(
      `Invalid parameter format: "${format}" is not supported; use json or txt`,
    );
  });

  it.each(['cb', 'jQuery123_456', '$', '_x', 'window.handlers.done', 'a$b'])(
    'accepts callback %j',
    (callback) => {
      expect(readFormat(req('json', { callback }))).toEqual({ format: 'json', callback });
    },
  );

  it('reads the callback from a form body too', () => {
    expect(readFormat(req('json', {}, { callback: 'fromBody' }))).toEqual({
      format: 'json',
      callback: 'fromBody',
    });
  });

  it('treats an empty callback as none', () => {
    expect(readFormat(req('json', { callback: '' }))).toEqual({ format: 'json', callback: null });
  });

  it.each<unknown>(['1abc', 'alert(1)', 'a-b', 'a b', '<script>', 'x;y', ['a', 'b'], { a: 1 }])(
    'refuses callback %j with a 400 naming callback',
    (callback) => {
      const error = errorOf(req('json', { callback }));
      expect(error.status).toBe(400);
      expect(error.code).toBe(ErrorCode.invalidParameter);
      expect(error.message).toBe(
        'Invalid parameter callback: must be a JavaScript identifier ([A-Za-z_$][\\w$.]*)',
      );
    },
  );

  it('refuses a callback with the txt format', () => {
    const error = errorOf(req('txt', { callback: 'cb' }));
    expect(error.status).toBe(400);
    expect(error.message).toBe('Invalid parameter callback: requires the json format');
  });

  it('checks the format before the callback', () => {
    expect(errorOf(req('xml', { callback: '1bad' })).message).toContain('Invalid parameter format');
  });
});
