// The runner XML of a REQUEST_CHECK answer (packets §15; captures session-b stream 7, frame 112).
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { runnerXmlLine } from '../../src/protocol/index.js';
import { readCaptureFile } from './capture-file.js';

const record = (over: Partial<TransferRecord> = {}): TransferRecord => ({
  specialId: -5035053932263505913n, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb',
  globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, step: 0, rank: 1, blockSize: 65536, mode: 1,
  updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk, retrieveMode: false, isMoved: false,
  start: new Date(2026, 10, 21, 13, 35, 50, 148), stop: new Date(2026, 10, 21, 13, 35, 50, 426),
  idRule: 'send', filename: 'in/hello.txt', originalName: 'hello.txt', fileInfo: 'first interop test {"follow":-5035053932401917946}',
  transferInfo: '{}', ...over,
});

describe('runner XML (REQUEST_CHECK answer)', () => {
  it('is one line starting exactly as the captured answer', () => {
    const frame = readCaptureFile('java-3.6.2-session-b.txt').find((f) => f.stream === 7 && f.type === 4 && f.end.bytes[0] === 18);
    expect(frame).toBeDefined();
    const shown = frame!.header.text!;
    expect(shown.startsWith('<runner><specialid>')).toBe(true);
    const xml = runnerXmlLine(record());
    expect(xml.startsWith(shown.slice(0, shown.indexOf('<ownerreq')))).toBe(true);
    expect(xml).not.toContain('\n');
    expect(xml).toMatch(/<ownerreq>hostb<\/ownerreq><requester>hosta<\/requester><requested>hostb<\/requested><idrule>send<\/idrule><filename>in\/hello\.txt<\/filename><originalname>hello\.txt<\/originalname><fileinfo>first interop test \{"follow":-5035053932401917946\}<\/fileinfo><\/runner>$/);
    expect(xml).not.toContain('updatedinfo');
    expect(xml).not.toContain('transferinfo');
  });

  it('matches the packets file example (fraction without trailing zeros, escaping)', () => {
    const xml = runnerXmlLine(record({
      specialId: 1700000000001n, retrieveMode: false, isMoved: true,
      start: new Date(2023, 10, 14, 22, 13, 20, 0), stop: new Date(2023, 10, 14, 22, 13, 21, 250),
      filename: 'in/data.bin', originalName: 'data.bin', fileInfo: 'noinfo {"follow":123456789}',
    }));
    expect(xml).toBe('<runner><specialid>1700000000001</specialid><globalstep>4</globalstep><globallaststep>4</globallaststep><step>0</step><rank>1</rank><blocksz>65536</blocksz><modetrans>1</modetrans><stepstatus>O</stepstatus><infostatus>O</infostatus><retrievemode>false</retrievemode><ismoved>true</ismoved><starttrans>2023-11-14 22:13:20.0</starttrans><stoptrans>2023-11-14 22:13:21.25</stoptrans><ownerreq>hostb</ownerreq><requester>hosta</requester><requested>hostb</requested><idrule>send</idrule><filename>in/data.bin</filename><originalname>data.bin</originalname><fileinfo>noinfo {"follow":123456789}</fileinfo></runner>');
    expect(runnerXmlLine(record({ fileInfo: 'a<b>&c' }))).toContain('<fileinfo>a&lt;b&gt;&amp;c</fileinfo>');
  });
});
