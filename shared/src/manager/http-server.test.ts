import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BindAddressError, parseBindAddress } from './http-server.ts';

const test = suite('bind addresses');

test('Go host:port forms parse; 0 and empty disable', () => {
  assert.equal(parseBindAddress(':8080'), { host: undefined, port: 8080 });
  assert.equal(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.equal(parseBindAddress('localhost:9440'), { host: 'localhost', port: 9440 });
  assert.equal(parseBindAddress('[::1]:8443'), { host: '::1', port: 8443 });
  assert.is(parseBindAddress('0'), undefined);
  assert.is(parseBindAddress(''), undefined);
});

test('malformed addresses are refused with the text in the message', () => {
  for (const bad of ['8080', 'host', ':', ':99999', '::1:80', 'a:b']) {
    assert.throws(() => parseBindAddress(bad), (e: unknown) => e instanceof BindAddressError && e.message.includes(`"${bad}"`));
  }
});

test.run();
