import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseJdbcUrl, redactUrl, StoreError } from '../../src/store/index.js';

describe('parseJdbcUrl', () => {
  it('PostgreSQL forms: default port, params, explicit credentials win, currentSchema, ssl', () => {
    expect(parseJdbcUrl('postgresql', 'jdbc:postgresql://db.example:6543/waarp?ssl=true&currentSchema=r66', 'waarp', 'secret')).toEqual({
      dialect: 'postgresql', host: 'db.example', port: 6543, database: 'waarp', user: 'waarp', password: 'secret', ssl: true, schema: 'r66',
      maxConnections: 10, displayUrl: 'jdbc:postgresql://db.example:6543/waarp?ssl=true&currentSchema=r66', warnings: [],
    });
    const s = parseJdbcUrl('org.postgresql.Driver', 'jdbc:postgresql://localhost/waarp?user=u&password=p');
    expect(s).toMatchObject({ dialect: 'postgresql', host: 'localhost', port: 5432, user: 'u', password: 'p', ssl: false, displayUrl: 'jdbc:postgresql://localhost/waarp?user=u&password=***' });
    expect(parseJdbcUrl('postgresql', 'jdbc:postgresql:waarp')).toMatchObject({ host: 'localhost', port: 5432, database: 'waarp' });
    expect(parseJdbcUrl('postgresql', 'jdbc:postgresql://[::1]:5433/w')).toMatchObject({ host: '::1', port: 5433 });
    expect(parseJdbcUrl('', 'postgres://root:pw@127.0.0.1:5432/test')).toMatchObject({ dialect: 'postgresql', user: 'root', password: 'pw', displayUrl: 'postgres://root:***@127.0.0.1:5432/test' });
  });

  it('MySQL and MariaDB forms; the URL scheme wins over dbdriver', () => {
    expect(parseJdbcUrl('mysql', 'jdbc:mysql://h:3307/w?useSSL=true', 'u', 'p')).toMatchObject({ dialect: 'mysql', host: 'h', port: 3307, database: 'w', ssl: true });
    expect(parseJdbcUrl('mariadb', 'jdbc:mariadb://h/w')).toMatchObject({ dialect: 'mariadb', port: 3306 });
    expect(parseJdbcUrl('mysql', 'jdbc:mariadb://h/w').dialect).toBe('mariadb');
    expect(parseJdbcUrl('mariadb', 'jdbc:mariadb:replication://h1,h2/w')).toMatchObject({ host: 'h1', warnings: [expect.stringContaining('several hosts')] });
    // A host name containing "h2" or "mysql" does not change the dialect (database.md §1.3 trap).
    expect(parseJdbcUrl('postgresql', 'jdbc:postgresql://mysql-h2.example/w').dialect).toBe('postgresql');
  });

  it('SQLite: jdbc:sqlite:PATH, plain paths, ~', () => {
    expect(parseJdbcUrl('sqlite', 'jdbc:sqlite:/var/lib/svc/db.sqlite')).toEqual({ dialect: 'sqlite', filename: '/var/lib/svc/db.sqlite', displayUrl: 'jdbc:sqlite:/var/lib/svc/db.sqlite', warnings: [] });
    expect(parseJdbcUrl('sqlite', '/data/r66.sqlite')).toMatchObject({ dialect: 'sqlite', filename: '/data/r66.sqlite' });
    expect(parseJdbcUrl('sqlite', '~/r66.sqlite')).toMatchObject({ filename: `${homedir()}/r66.sqlite` });
  });

  it('H2 becomes a SQLite file beside the H2 path, with a warning; H2 servers are refused', () => {
    const s = parseJdbcUrl('h2', 'jdbc:h2:/var/lib/svc/svc1/db/waarp;AUTO_SERVER=TRUE;IFEXISTS=TRUE', 'sa', 'sa');
    expect(s).toMatchObject({ dialect: 'sqlite', filename: '/var/lib/svc/svc1/db/waarp.sqlite' });
    expect(s.warnings[0]).toMatch(/H2 database .* cannot be read .*waarp\.sqlite/);
    expect(parseJdbcUrl('org.h2.Driver', 'jdbc:h2:file:~/db/waarp')).toMatchObject({ filename: `${homedir()}/db/waarp.sqlite` });
    expect(parseJdbcUrl('h2', 'jdbc:h2:mem:x')).toMatchObject({ filename: ':memory:' });
    expect(() => parseJdbcUrl('h2', 'jdbc:h2:tcp://localhost/~/waarp')).toThrow(StoreError);
  });

  it('unknown drivers, Oracle and bad URLs give StoreErrors without the password', () => {
    expect(() => parseJdbcUrl('db2', 'jdbc:db2://h/w')).toThrow(/unknown dbdriver "db2"/);
    expect(() => parseJdbcUrl('', 'somewhere')).toThrow(/no dbdriver/);
    expect(() => parseJdbcUrl('oracle', 'jdbc:oracle:thin:@h:1521:SID')).toThrow(/Oracle is not supported/);
    const err = (() => { try { parseJdbcUrl('postgresql', 'jdbc:postgresql://u:topsecret@/w?password=topsecret'); } catch (e) { return e as Error; } return undefined; })();
    expect(err).toBeInstanceOf(StoreError);
    expect(err?.message).not.toContain('topsecret');
  });

  it('redactUrl hides user-info and parameter passwords', () => {
    expect(redactUrl('mysql://root:pw@h:3306/t')).toBe('mysql://root:***@h:3306/t');
    expect(redactUrl('jdbc:mysql://h/t?user=a&password=b&x=1')).toBe('jdbc:mysql://h/t?user=a&password=***&x=1');
  });
});
