import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, checkProtocol, insideRoots, invalidCidrs, isPublicAddress } from '../../src/policy.ts';

describe('checkProtocol', () => {
  it('accepts listed schemes with or without the colon, any case', () => {
    expect(checkProtocol(new URL('HTTPS://example.com/a'), ['http', 'https'])).toBe(true);
    expect(checkProtocol(new URL('s3://b/k'), ['s3:'])).toBe(true);
  });
  it('refuses others', () => {
    expect(checkProtocol(new URL('ftp://example.com/a'), ['http', 'https'])).toBe(false);
    expect(checkProtocol(new URL('file:///etc/passwd'), ['http', 'https'])).toBe(false);
    expect(checkProtocol(new URL('httpx://a/'), ['http'])).toBe(false);
  });
});

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
  ])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback /8'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 end'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT end'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '0/8'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local fd'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard'],
    ['example.com', 'not an address'],
    ['0x7f.1', 'non-canonical IPv4 form'],
    ['', 'empty'],
  ])('%s is not public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it('accepts bracketed IPv6 literals', () => {
    expect(isPublicAddress('[::1]')).toBe(false);
    expect(isPublicAddress('[2606:4700:4700::1111]')).toBe(true);
  });
});

describe('addressAllowed', () => {
  it('true allows everything that is an address', () => {
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('fe80::1', true)).toBe(true);
    expect(addressAllowed('not-an-ip', true)).toBe(false);
  });

  it('false allows public addresses only', () => {
    expect(addressAllowed('8.8.8.8', false)).toBe(true);
    expect(addressAllowed('127.0.0.1', false)).toBe(false);
    expect(addressAllowed('::ffff:192.168.0.1', false)).toBe(false);
  });

  it('a CIDR list allows public addresses plus those ranges', () => {
    const list = ['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8'];
    expect(addressAllowed('8.8.8.8', list)).toBe(true);
    expect(addressAllowed('127.0.0.1', list)).toBe(true);
    expect(addressAllowed('127.0.0.2', list)).toBe(false);
    expect(addressAllowed('10.200.3.4', list)).toBe(true);
    expect(addressAllowed('11.0.0.1', list)).toBe(true); // public anyway
    expect(addressAllowed('192.168.0.1', list)).toBe(false);
    expect(addressAllowed('fd12::1', list)).toBe(true);
    expect(addressAllowed('fc00::1', list)).toBe(false);
    expect(addressAllowed('::1', list)).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 address against IPv4 ranges', () => {
    expect(addressAllowed('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', ['10.0.0.0/8'])).toBe(false);
  });

  it('accepts single addresses in the list and ignores invalid entries', () => {
    expect(addressAllowed('192.168.1.5', ['192.168.1.5'])).toBe(true);
    expect(addressAllowed('192.168.1.6', ['192.168.1.5'])).toBe(false);
    expect(addressAllowed('192.168.1.5', ['garbage', '192.168.1.0/33'])).toBe(false);
    expect(invalidCidrs(['10.0.0.0/8', 'garbage', '192.168.1.0/33', '::1', ' fd00::/8 '])).toEqual(['garbage', '192.168.1.0/33']);
  });

  it('an empty list allows public addresses only', () => {
    expect(addressAllowed('127.0.0.1', [])).toBe(false);
    expect(addressAllowed('1.2.3.4', [])).toBe(true);
  });
});

describe('insideRoots', () => {
  it('compares whole path segments', () => {
    expect(insideRoots('/data/a.tif', ['/data'])).toBe(true);
    expect(insideRoots('/data/sub/a.tif', ['/data/'])).toBe(true);
    expect(insideRoots('/data', ['/data'])).toBe(true);
    expect(insideRoots('/data2/a.tif', ['/data'])).toBe(false);
    expect(insideRoots('/dat', ['/data'])).toBe(false);
    expect(insideRoots('/other/a.tif', ['/data', '/srv'])).toBe(false);
    expect(insideRoots('/srv/x', ['/data', '/srv'])).toBe(true);
  });

  it('sees through .. (already normalised or not)', () => {
    expect(insideRoots('/data/../etc/passwd', ['/data'])).toBe(false);
    expect(insideRoots('/data/sub/../a.tif', ['/data'])).toBe(true);
    expect(insideRoots('/data/..a.tif', ['/data'])).toBe(true); // a file name starting with two dots
  });

  it('refuses relative paths and relative roots', () => {
    expect(insideRoots('data/a.tif', ['/data'])).toBe(false);
    expect(insideRoots('/data/a.tif', ['data'])).toBe(false);
    expect(insideRoots('/data/a.tif', [])).toBe(false);
  });

  describe('with real folders', () => {
    let base: string;
    beforeAll(async () => {
      base = await realpath(await mkdtemp(join(tmpdir(), 'roots-')));
      await mkdir(join(base, 'data'));
      await mkdir(join(base, 'data2'));
      await writeFile(join(base, 'data', 'in.bin'), 'x');
      await writeFile(join(base, 'data2', 'out.bin'), 'x');
      await symlink(join(base, 'data2', 'out.bin'), join(base, 'data', 'escape.bin'));
    });
    afterAll(() => rm(base, { recursive: true, force: true }));

    it("a symlink inside the root that points outside is outside once realpath'd", async () => {
      const link = join(base, 'data', 'escape.bin');
      expect(insideRoots(resolve(link), [join(base, 'data')])).toBe(true); // lexically inside…
      expect(insideRoots(await realpath(link), [join(base, 'data')])).toBe(false); // …really outside
    });

    it('the sibling folder with a longer name is not inside', async () => {
      expect(insideRoots(await realpath(join(base, 'data2', 'out.bin')), [join(base, 'data')])).toBe(false);
      expect(insideRoots(await realpath(join(base, 'data', 'in.bin')), [join(base, 'data')])).toBe(true);
    });
  });
});
