import { describe, expect, it } from 'vitest';
import { databaseErrorReply } from '../../../src/http/db-errors.js';

const sqlState = (code: string) => Object.assign(new Error('from PostgreSQL'), { code });
const socket = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });

describe('databaseErrorReply: an unreachable database', () => {
  it.each([
    ['refused while it restarts', socket('ECONNREFUSED')],
    ['reset when it stops', socket('ECONNRESET')],
    ['terminated by an administrator (57P01)', sqlState('57P01')],
    ['starting up (57P03)', sqlState('57P03')],
    ['a connection exception (08006)', sqlState('08006')],
    ['too many connections (53300)', sqlState('53300')],
    ['a connection ended under a query', new Error('Connection terminated unexpectedly')],
    ['a client whose connection ended between queries', new Error('Client has encountered a connection error and is not queryable')],
    ['no connection in time', new Error('timeout exceeded when trying to connect')],
  ])('%s answers 503 with Retry-After', (_, err) => {
    const reply = databaseErrorReply(err);
    expect(reply).toMatchObject({ status: 503, headers: { 'retry-after': expect.stringMatching(/^\d+$/) } });
    expect(reply!.message).toMatch(/retry/);
  });

  it('leaves other errors alone (a defect stays a 500)', () => {
    expect(databaseErrorReply(new Error('Cannot read properties of undefined'))).toBeNull();
    expect(databaseErrorReply(sqlState('42P01'))).toBeNull(); // undefined table: a defect
    expect(databaseErrorReply(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeNull();
  });

  it('keeps the statuses of races and bad input', () => {
    expect(databaseErrorReply(sqlState('23505'))?.status).toBe(409);
    expect(databaseErrorReply(sqlState('40001'))?.status).toBe(503);
    expect(databaseErrorReply(sqlState('22P02'))?.status).toBe(400);
  });
});
