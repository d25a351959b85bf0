import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ErrorCode,
  errorCodeFromChar,
  errorCodeFromName,
  errorCodeFromOrdinal,
  isSuccessAnswer,
  parseErrorCode,
} from '../../src/model/error-code.js';

describe('ErrorCode table', () => {
  it('has 34 codes with unique chars, ordinals in order', () => {
    expect(ERROR_CODES).toHaveLength(34);
    ERROR_CODES.forEach((c, i) => expect(c.ordinal).toBe(i));
    expect(new Set(ERROR_CODES.map((c) => c.char)).size).toBe(34);
    expect(ERROR_CODES.map((c) => c.char).join('')).toBe('iBXPOClAETMDrFUSRIHKW-QsNLufcpznad');
  });
  it('looks codes up by char, ordinal and name', () => {
    expect(errorCodeFromChar('O')).toBe(ErrorCode.CompleteOk);
    expect(errorCodeFromOrdinal(4)).toBe(ErrorCode.CompleteOk);
    expect(errorCodeFromOrdinal(34)).toBeUndefined();
    expect(errorCodeFromOrdinal(-1)).toBeUndefined();
    expect(errorCodeFromOrdinal(1.5)).toBeUndefined();
    expect(errorCodeFromName('StoppedTransfer')?.char).toBe('H');
    expect(errorCodeFromChar('x')).toBeUndefined();
  });
  it('parses code strings like Java', () => {
    expect(parseErrorCode('')).toBe(ErrorCode.Unknown);
    expect(parseErrorCode(null)).toBe(ErrorCode.Unknown);
    expect(parseErrorCode('Hello')).toBe(ErrorCode.StoppedTransfer);
    expect(parseErrorCode(' CompleteOk ')).toBe(ErrorCode.CompleteOk);
    expect(parseErrorCode('zzz')).toBe(ErrorCode.Running);
    expect(parseErrorCode('Zzz')).toBe(ErrorCode.Unknown);
  });
  it('knows success answers', () => {
    expect([...'OiPBQszX'].every((c) => isSuccessAnswer(errorCodeFromChar(c)!))).toBe(true);
    expect(isSuccessAnswer(ErrorCode.TransferError)).toBe(false);
  });
});
