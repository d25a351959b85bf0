// The texts, spacing, keys and key order of the Java 3.6.2 client (captures/cli-output-java-3.6.2.md,
// cli.md §3.13), rebuilt from our output functions with the captured run's own values.
import { describe, expect, it } from 'vitest';
import {
  fileFinalText, informationStatusText, renderResult, resultObject, ResultFields, statusWord, virtualPath,
} from '../../src/cli/r66client/output.js';
import { PRE_TASK_ERROR, transferErrorText } from '../../src/cli/r66client/record-fields.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep } from '../../src/model/transfer.js';
import { transferRecord } from '../helpers/transfer-record.js';

const ARGS = 'client/conf/client.xml -to hostb -file hello.txt -rule send -info out1 ';
const record = (): ResultFields => new ResultFields()
  .set('remote', 'hostb').set('ruleid', 'send').set('statusCode', 'O').set('specialid', -8493305389941522420n).set('finalPath', '/out/hello.txt')
  .set('requested', 'hostb').set('requester', 'hosta').set('fileInformation', 'out1 {"follow":-8493305390203666421}')
  .set('transferInformation', '{"ORIGINALSIZE":31}').set('originalSize', 31).set('originalPath', '/out/hello.txt');

describe('output of the Java 3.6.2 client, character for character', () => {
  it('DirectTransfer success: status line and JSON', () => {
    const text = `Transfer in status: ${statusWord(0)}`;
    expect(`[DirectTransfer] ${text}`).toBe('[DirectTransfer] Transfer in status:       SUCCESS ');
    const body = record().set('filefinal', fileFinalText('/out/hello.txt')).set('delay', 1174);
    expect(renderResult(resultObject('DirectTransfer', ARGS, 0, text, body), 'json')).toBe(
      '{"command":"DirectTransfer","args":"client/conf/client.xml -to hostb -file hello.txt -rule send -info out1 ","status":0,"statusTxt":"Transfer in status:       SUCCESS ","remote":"hostb","ruleid":"send","statusCode":"O","specialid":-8493305389941522420,"finalPath":"/out/hello.txt","requested":"hostb","requester":"hosta","fileInformation":"out1 {\\"follow\\":-8493305390203666421}","transferInformation":"{\\"ORIGINALSIZE\\":31}","originalSize":31,"originalPath":"/out/hello.txt","filefinal":"File: /out/hello.txt Ready true isExternal false 0","delay":1174}\n',
    );
  });

  it('DirectTransfer failure: status and statusTxt after the transfer fields, then error', () => {
    const text = `Transfer in status: ${statusWord(2)}`;
    const body = record().set('error', 'Pre task in error (or even before)');
    const keys = resultObject('DirectTransfer', ARGS, 2, text, body).list().map(([k]) => k);
    expect(keys).toEqual(['command', 'args', 'remote', 'ruleid', 'statusCode', 'specialid', 'finalPath', 'requested', 'requester', 'fileInformation', 'transferInformation', 'originalSize', 'originalPath', 'status', 'statusTxt', 'error']);
    expect(text).toBe('Transfer in status:       FAILURE ');
  });

  it('RequestInformation -exist: " SUCCESS ", keys command args status statusTxt remote nb file1', () => {
    const text = informationStatusText(0);
    expect(`[RequestInformation] ${text}`).toBe('[RequestInformation]  SUCCESS ');
    const body = new ResultFields().set('remote', 'hostb').set('nb', 1).set('file1', 'true');
    expect(renderResult(resultObject('RequestInformation', 'client/conf/client.xml -to hostb -rule send -file remote1.txt -exist ', 0, text, body), 'json')).toBe(
      '{"command":"RequestInformation","args":"client/conf/client.xml -to hostb -rule send -file remote1.txt -exist ","status":0,"statusTxt":" SUCCESS ","remote":"hostb","nb":1,"file1":"true"}\n',
    );
  });

  it('msend: the summary without ko when none failed, the per-file block without args', () => {
    const summaryText = `Multiple Transfer in status: ${statusWord(0)}`;
    const summary = new ResultFields().set('remote', 'hostb').set('ok', 1).set('ko', undefined).set('delay', 607);
    expect(renderResult(resultObject('MultipleDirectTransfer', 'client/conf/client.xml -to hostb -file hello.txt -rule send -info m ', 0, summaryText, summary), 'json')).toBe(
      '{"command":"MultipleDirectTransfer","args":"client/conf/client.xml -to hostb -file hello.txt -rule send -info m ","status":0,"statusTxt":"Multiple Transfer in status:       SUCCESS ","remote":"hostb","ok":1,"delay":607}\n',
    );
    const unique = resultObject('Unique MultipleDirectTransfer', undefined, 0, `Transfer in status: ${statusWord(0)}`, record());
    expect(unique.list().slice(0, 4).map(([k]) => k)).toEqual(['command', 'status', 'statusTxt', 'remote']);
  });

  it('a file found under serverhome is named by its virtual path (/out/hello.txt), another as it is', () => {
    expect(virtualPath('/srv/svc/data', '/srv/svc/data/out/hello.txt')).toBe('/out/hello.txt');
    expect(virtualPath('/srv/svc/data', '/tmp/hello.txt')).toBe('/tmp/hello.txt');
    expect(virtualPath('/srv/svc/data', '/srv/svc/database/x')).toBe('/srv/svc/database/x');
  });

  it('Message and the submission status texts', () => {
    expect(`Test Message ${statusWord(0)}TestPacket: MSG:hi:101`).toBe('Test Message       SUCCESS TestPacket: MSG:hi:101');
    expect(`Prepare transfer in ${statusWord(0)}`).toBe('Prepare transfer in       SUCCESS ');
  });

  it('the same object in XML, CSV and property form keeps the texts and the order', () => {
    const body = new ResultFields().set('remote', 'hostb').set('nb', 1).set('file1', 'true');
    const result = resultObject('RequestInformation', 'c.xml -to hostb ', 0, informationStatusText(0), body);
    expect(renderResult(result, 'xml')).toBe('<xml><command>RequestInformation</command><args>c.xml -to hostb </args><status>0</status><statusTxt> SUCCESS </statusTxt><remote>hostb</remote><nb>1</nb><file1>true</file1></xml>\n');
    expect(renderResult(result, 'csv')).toBe('command;args;status;statusTxt;remote;nb;file1\nRequestInformation;c.xml -to hostb ;0; SUCCESS ;hostb;1;true\n');
    expect(renderResult(result, 'property')).toBe('command=RequestInformation\nargs=c.xml -to hostb \nstatus=0\nstatusTxt= SUCCESS \nremote=hostb\nnb=1\nfile1=true\n');
  });

  it('error: the original\'s fixed text for a file to send not found before anything started, code and message otherwise', () => {
    const sending = transferRecord(1n, { retrieveMode: true, globalLastStep: TaskStep.NOTASK });
    expect(transferErrorText(sending, ErrorCode.FileNotFound, 'File not found: nosuch.txt does not exist')).toBe(PRE_TASK_ERROR);
    expect(PRE_TASK_ERROR).toBe('Pre task in error (or even before)');
    // A pull whose file the partner lacks, or a sender failing later: the cause itself.
    expect(transferErrorText({ ...sending, retrieveMode: false }, ErrorCode.FileNotFound, 'No file')).toBe('FileNotFound: No file');
    expect(transferErrorText({ ...sending, globalLastStep: TaskStep.TRANSFERTASK }, ErrorCode.FileNotFound, 'gone')).toBe('FileNotFound: gone');
    expect(transferErrorText(sending, ErrorCode.ConnectionImpossible, 'refused')).toBe('ConnectionImpossible: refused');
  });
});
