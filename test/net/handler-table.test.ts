/**
 * The R66 handler table (issue 20 item 5): conversations go to the row of their kind and, for Valid
 * and JsonCommand, of their sub-kind; a sub-kind nobody registered goes to the kind's row for the
 * rest, or gets Unimplemented; nothing wraps anything else.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { RequestHandlers, type RequestContext } from '../../src/net/handlers.js';
import { PacketType, type Packet } from '../../src/protocol/index.js';

const ctx = {} as RequestContext;
const valid = (subType: number): Packet => ({ kind: 'valid', header: '', middle: '', subType }) as Packet;

describe('RequestHandlers', () => {
  it('dispatches by kind and sub-kind, the rest to the kind row, and describes itself as one table', async () => {
    const seen: string[] = [];
    const handlers = new RequestHandlers()
      .register('valid', async (_c, p) => void seen.push(`rest ${p.subType}`), 'base')
      .registerSubKinds('valid', [PacketType.STOP, PacketType.CANCEL], async (_c, p) => void seen.push(`orders ${p.subType}`), 'transfer orders')
      .registerSubKinds('valid', [PacketType.LOG], async (_c, p) => void seen.push(`exports ${p.subType}`), 'admin exports')
      .register('test', async () => void seen.push('test'));
    const run = handlers.get('valid')!;
    await run(ctx, valid(PacketType.STOP));
    await run(ctx, valid(PacketType.LOG));
    await run(ctx, valid(PacketType.CONFEXPORT));
    await handlers.get('test')!(ctx, { kind: 'test' } as Packet);
    expect(seen).toEqual([`orders ${PacketType.STOP}`, `exports ${PacketType.LOG}`, `rest ${PacketType.CONFEXPORT}`, 'test']);
    expect(handlers.table()).toEqual([
      { kind: 'valid', subKinds: [PacketType.STOP, PacketType.CANCEL].sort((a, b) => a - b), name: 'transfer orders' },
      { kind: 'valid', subKinds: [PacketType.LOG], name: 'admin exports' },
      { kind: 'valid', subKinds: 'rest', name: 'base' },
      { kind: 'test', subKinds: 'rest', name: 'test' },
    ]);
    expect(handlers.get('request')).toBeUndefined();
  });

  it('a sub-kind without a row and without a rest row is Unimplemented; restOf looks up when called', async () => {
    const handlers = new RequestHandlers().registerSubKinds('valid', [PacketType.STOP], async () => undefined, 'orders');
    const err = await handlers.get('valid')!(ctx, valid(PacketType.LOG)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(R66Error);
    expect((err as R66Error).code).toBe(ErrorCode.Unimplemented);
    const rest = handlers.restOf('valid');
    await expect(rest(ctx, valid(PacketType.LOG))).rejects.toMatchObject({ code: ErrorCode.Unimplemented });
    let late = false;
    handlers.register('valid', async () => void (late = true), 'base');
    await rest(ctx, valid(PacketType.LOG));
    expect(late).toBe(true);
  });

  it('refuses a sub-kind another module answers already', () => {
    const handlers = new RequestHandlers().registerSubKinds('valid', [PacketType.STOP], async () => undefined, 'transfer orders');
    expect(() => handlers.registerSubKinds('valid', [PacketType.LOG, PacketType.STOP], async () => undefined, 'admin exports')).toThrow(/sub-kind \d+ is answered by transfer orders already/);
    // Nothing of the refused registration was kept.
    expect(handlers.table()).toEqual([{ kind: 'valid', subKinds: [PacketType.STOP], name: 'transfer orders' }]);
  });
});
