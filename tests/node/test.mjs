// Client compatibility test: runs a transcript of commands through node-redis (RESP2 and
// RESP3) and ioredis against the Strata server at STRATA_ADDR (host:port) and checks every
// result. Exits non-zero on the first failed check or on an unexpected error.
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import Redis from 'ioredis';

const addr = process.env.STRATA_ADDR;
if (!addr) {
  console.error('STRATA_ADDR (host:port) is not set');
  process.exit(2);
}
const sep = addr.lastIndexOf(':');
const host = addr.slice(0, sep);
const port = Number(addr.slice(sep + 1));

let passed = 0;
let failed = 0;

async function check(name, fn) {
  try {
    await fn();
    passed++;
  } catch (err) {
    failed++;
    console.error(`FAIL ${name}: ${err && err.stack ? err.stack : err}`);
  }
}

async function rejects(promise, pattern) {
  await assert.rejects(promise, (err) => {
    assert.match(String(err && err.message), pattern);
    return true;
  });
}

async function nodeRedis(resp) {
  const tag = `node-redis RESP${resp}`;
  const p = `nr${resp}:`;
  const client = createClient({ socket: { host, port, reconnectStrategy: false }, RESP: resp, name: `nr${resp}` });
  client.on('error', (err) => console.error(`${tag} client error: ${err}`));
  await client.connect();
  try {
    await check(`${tag} PING`, async () => assert.equal(await client.ping(), 'PONG'));
    await check(`${tag} SET/GET`, async () => {
      assert.equal(await client.set(p + 's', 'hello'), 'OK');
      assert.equal(await client.get(p + 's'), 'hello');
      assert.equal(await client.get(p + 'missing'), null);
    });
    await check(`${tag} SET options`, async () => {
      assert.equal(await client.set(p + 's', 'again', { NX: true }), null);
      assert.equal(await client.set(p + 'e', 'v', { EX: 100 }), 'OK');
      const ttl = await client.ttl(p + 'e');
      assert.ok(ttl > 0 && ttl <= 100, `TTL ${ttl}`);
      assert.equal(await client.ttl(p + 'missing'), -2);
    });
    await check(`${tag} INCR family`, async () => {
      assert.equal(await client.incr(p + 'n'), 1);
      assert.equal(await client.incrBy(p + 'n', 10), 11);
      assert.equal(await client.decr(p + 'n'), 10);
      assert.equal(String(await client.incrByFloat(p + 'f', 1.5)), '1.5');
      await rejects(client.incr(p + 's'), /ERR value is not an integer or out of range/);
    });
    await check(`${tag} MSET/MGET/STRLEN/APPEND`, async () => {
      assert.equal(await client.mSet({ [p + 'a']: '1', [p + 'b']: '2' }), 'OK');
      assert.deepEqual(await client.mGet([p + 'a', p + 'missing', p + 'b']), ['1', null, '2']);
      assert.equal(await client.append(p + 'a', 'xyz'), 4);
      assert.equal(await client.strLen(p + 'a'), 4);
      assert.equal(await client.getRange(p + 'a', 1, 2), 'xy');
    });
    await check(`${tag} keyspace`, async () => {
      assert.equal(await client.exists([p + 'a', p + 'b', p + 'missing']), 2);
      assert.equal(await client.type(p + 'a'), 'string');
      assert.equal(await client.type(p + 'missing'), 'none');
      assert.equal(await client.del([p + 'a', p + 'missing']), 1);
      assert.equal(await client.expire(p + 'b', 1000), 1);
      assert.equal(await client.persist(p + 'b'), 1);
      assert.equal(await client.ttl(p + 'b'), -1);
    });
    await check(`${tag} hash`, async () => {
      assert.equal(await client.hSet(p + 'h', { f1: 'v1', f2: 'v2' }), 2);
      assert.equal(await client.hGet(p + 'h', 'f1'), 'v1');
      assert.equal(await client.hGet(p + 'h', 'nope'), null);
      const all = await client.hGetAll(p + 'h');
      assert.deepEqual({ ...all }, { f1: 'v1', f2: 'v2' });
      assert.equal(await client.hLen(p + 'h'), 2);
      await rejects(client.get(p + 'h'), /^WRONGTYPE/);
    });
    await check(`${tag} set`, async () => {
      assert.equal(await client.sAdd(p + 'set', ['a', 'b', 'c']), 3);
      const members = [...(await client.sMembers(p + 'set'))].sort();
      assert.deepEqual(members, ['a', 'b', 'c']);
      assert.equal(Number(await client.sIsMember(p + 'set', 'a')), 1);
      assert.equal(await client.sCard(p + 'set'), 3);
    });
    await check(`${tag} CLIENT`, async () => {
      const id = await client.clientId();
      assert.ok(id > 0);
      assert.equal(await client.clientGetName(), `nr${resp}`);
      const list = await client.sendCommand(['CLIENT', 'LIST']);
      assert.match(String(list), new RegExp(`id=${id} .*name=nr${resp} .*resp=${resp}`));
      const info = await client.sendCommand(['CLIENT', 'INFO']);
      assert.match(String(info), new RegExp(`^id=${id} `));
    });
    await check(`${tag} HELLO`, async () => {
      const hello = await client.sendCommand(['HELLO', String(resp)]);
      const map = hello instanceof Map ? Object.fromEntries(hello)
        : Array.isArray(hello) ? Object.fromEntries(Array.from({ length: hello.length / 2 }, (_, i) => [hello[2 * i], hello[2 * i + 1]]))
          : hello;
      assert.equal(String(map.server), 'redis');
      assert.equal(String(map.version), '7.0.15');
      assert.equal(Number(map.proto), resp);
      assert.equal(String(map.mode), 'standalone');
      assert.equal(String(map.role), 'master');
    });
    await check(`${tag} CONFIG GET`, async () => {
      const cfg = await client.configGet('maxclients');
      assert.equal(cfg.maxclients, '10000');
    });
    await check(`${tag} INFO`, async () => {
      const info = await client.info('keyspace');
      assert.match(String(info), /# Keyspace\r\ndb0:keys=\d+,expires=\d+,avg_ttl=0/);
      const server = await client.info('server');
      assert.match(String(server), /redis_version:7\.0\.15\r\n/);
    });
    await check(`${tag} COMMAND`, async () => {
      assert.ok(Number(await client.sendCommand(['COMMAND', 'COUNT'])) > 50);
      assert.deepEqual(await client.sendCommand(['COMMAND', 'GETKEYS', 'MSET', 'k1', 'v1', 'k2', 'v2']), ['k1', 'k2']);
    });
    await check(`${tag} AUTH without requirepass`, async () => {
      await rejects(client.sendCommand(['AUTH', 'x']), /called without any password configured/);
    });
    await check(`${tag} pipeline`, async () => {
      const replies = await client.multi().set(p + 'm', '1').incr(p + 'm').get(p + 'm').exec().catch(() => null);
      if (replies !== null) {
        assert.deepEqual(replies.map(String), ['OK', '2', '2']);
      }
      const [a, b] = await Promise.all([client.get(p + 's'), client.get(p + 'missing')]);
      assert.equal(a, 'hello');
      assert.equal(b, null);
    });
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

async function ioRedis() {
  const tag = 'ioredis';
  const p = 'io:';
  const client = new Redis({ host, port, connectionName: 'ioredis', maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  client.on('error', (err) => console.error(`${tag} client error: ${err}`));
  await client.connect();
  try {
    await check(`${tag} PING`, async () => assert.equal(await client.ping(), 'PONG'));
    await check(`${tag} SET/GET`, async () => {
      assert.equal(await client.set(p + 's', 'v', 'EX', 100), 'OK');
      assert.equal(await client.get(p + 's'), 'v');
      assert.equal(await client.get(p + 'missing'), null);
      assert.equal(await client.getdel(p + 's'), 'v');
      assert.equal(await client.exists(p + 's'), 0);
    });
    await check(`${tag} counters`, async () => {
      assert.equal(await client.incrby(p + 'n', 5), 5);
      assert.equal(await client.incrbyfloat(p + 'n', '0.5'), '5.5');
    });
    await check(`${tag} hash`, async () => {
      await client.hset(p + 'h', 'a', '1', 'b', '2');
      assert.deepEqual(await client.hgetall(p + 'h'), { a: '1', b: '2' });
    });
    await check(`${tag} pipeline`, async () => {
      const res = await client.pipeline().set(p + 'x', '1').incr(p + 'x').get(p + 'x').exec();
      assert.deepEqual(res, [[null, 'OK'], [null, 2], [null, '2']]);
    });
    await check(`${tag} CLIENT`, async () => {
      assert.equal(await client.client('GETNAME'), 'ioredis');
      const id = await client.client('ID');
      assert.match(await client.client('LIST'), new RegExp(`id=${id} .*name=ioredis `));
      assert.equal(await client.client('SETNAME', 'renamed'), 'OK');
      assert.equal(await client.client('GETNAME'), 'renamed');
      await rejects(client.client('SETNAME', 'has space'), /Client names cannot contain spaces/);
    });
    await check(`${tag} CONFIG`, async () => {
      assert.deepEqual(await client.config('GET', 'timeout'), ['timeout', '0']);
      await rejects(client.config('SET', 'databases', '3'), /can't set immutable config/);
    });
    await check(`${tag} INFO`, async () => {
      const info = await client.info();
      for (const section of ['Server', 'Clients', 'Memory', 'Persistence', 'Stats', 'Replication', 'CPU', 'Keyspace']) {
        assert.ok(info.includes(`# ${section}\r\n`), `INFO lacks ${section}`);
      }
      assert.match(info, /connected_clients:\d+/);
    });
    await check(`${tag} errors`, async () => {
      await rejects(client.call('NOSUCHCOMMAND'), /ERR unknown command 'NOSUCHCOMMAND'/);
      await rejects(client.call('GET'), /ERR wrong number of arguments for 'get' command/);
    });
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

try {
  await nodeRedis(2);
  await nodeRedis(3);
  await ioRedis();
} catch (err) {
  failed++;
  console.error(`FAIL: ${err && err.stack ? err.stack : err}`);
}
console.log(`node clients: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
