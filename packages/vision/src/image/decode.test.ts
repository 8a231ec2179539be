import { describe, it, expect } from '@jest/globals';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { AppError } from '@cardlens/errors';
import { chooseDecodeShrink, decodeScaled, downsampleRgb, IMAGE_LIMITS, probeImage, sniffFormat } from './decode';

async function jpeg(width: number, height: number, opts: { channels?: 1 | 3; orientation?: number } = {}): Promise<Buffer> {
  const channels = opts.channels ?? 3;
  const raw = Buffer.alloc(width * height * channels);
  // left half dark, right half bright, top rows red-ish (to check orientation)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      const v = x < width / 2 ? 40 : 200;
      raw[o] = y < height / 4 && channels === 3 ? 250 : v;
      if (channels === 3) {
        raw[o + 1] = v;
        raw[o + 2] = v;
      }
    }
  }
  let s = sharp(raw, { raw: { width, height, channels } });
  if (channels === 1) s = s.toColourspace('b-w');
  if (opts.orientation) s = s.withMetadata({ orientation: opts.orientation });
  return s.jpeg({ quality: 90 }).toBuffer();
}

function pngHeader(width: number, height: number): Buffer {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]);
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(AppError);
  await expect(p).rejects.toMatchObject({ code });
}

describe('probeImage / decodeScaled', () => {
  it('decodes a JPEG to RGB at full size and at a shrink factor', async () => {
    const buf = await jpeg(800, 600);
    const info = await probeImage(buf);
    expect(info).toMatchObject({ format: 'jpeg', width: 800, height: 600, orientation: 1 });
    const full = await decodeScaled(buf, info, 1);
    expect(full.image.width).toBe(800);
    expect(full.image.data.length).toBe(800 * 600 * 3);
    expect(full.scaleX).toBe(1);
    const small = await decodeScaled(buf, info, 4);
    expect(small.image.width).toBe(200);
    expect(small.image.height).toBe(150);
    expect(small.scaleX).toBe(4);
    // the dark/bright split stays at the same relative place
    const row = 100 * 200 * 3;
    expect(small.image.data[row + 60 * 3 + 1]).toBeLessThan(80);
    expect(small.image.data[row + 140 * 3 + 1]).toBeGreaterThan(160);
  });

  it('honours EXIF orientation (6 = rotate 90 clockwise)', async () => {
    const buf = await jpeg(400, 300, { orientation: 6 });
    const info = await probeImage(buf);
    expect(info.orientation).toBe(6);
    expect([info.width, info.height]).toEqual([300, 400]);
    const d = await decodeScaled(buf, info, 1);
    expect([d.image.width, d.image.height]).toEqual([300, 400]);
    // the original top rows (red) are now the right-hand columns
    const px = (x: number, y: number): number[] => Array.from(d.image.data.subarray((y * 300 + x) * 3, (y * 300 + x) * 3 + 3));
    expect(px(295, 100)[0]! - px(295, 100)[1]!).toBeGreaterThan(100);
    expect(Math.abs(px(10, 100)[0]! - px(10, 100)[1]!)).toBeLessThan(30);
  });

  it('turns grayscale into RGB', async () => {
    const buf = await jpeg(300, 300, { channels: 1 });
    const info = await probeImage(buf);
    const d = await decodeScaled(buf, info, 1);
    expect(d.image.data.length).toBe(300 * 300 * 3);
    const i = (150 * 300 + 250) * 3;
    expect(d.image.data[i]).toBe(d.image.data[i + 1]);
    expect(d.image.data[i]).toBeGreaterThan(160);
  });

  it('accepts a PNG whatever it is called (format comes from the magic bytes), flattening alpha', async () => {
    const png = await sharp({ create: { width: 320, height: 240, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }).png().toBuffer();
    expect(sniffFormat(png)).toBe('png');
    const info = await probeImage(png);
    expect(info.format).toBe('png');
    const d = await decodeScaled(png, info, 1);
    expect(d.image.data.length).toBe(320 * 240 * 3);
    expect(d.image.data[1]).toBeGreaterThan(140); // green over mid grey
  });

  it('rejects what is not JPEG or PNG by its magic bytes', async () => {
    await expectCode(probeImage(Buffer.from('GIF89a....................')), 'invalid_image');
    await expectCode(probeImage(Buffer.from('hello, this is text')), 'invalid_image');
    const webp = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } }).webp().toBuffer();
    await expectCode(probeImage(webp), 'invalid_image');
    await expectCode(probeImage(new Uint8Array(0)), 'invalid_image');
  });

  it('rejects a JPEG magic with garbage after it, and a truncated JPEG', async () => {
    await expectCode(probeImage(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)])), 'invalid_image');
    const buf = await jpeg(640, 480);
    const cut = buf.subarray(0, Math.floor(buf.length * 0.6));
    const run = async (): Promise<unknown> => decodeScaled(cut, await probeImage(cut), 1);
    await expectCode(run(), 'invalid_image');
  });

  it('rejects a pixel bomb from its header alone (no decode)', async () => {
    // The buffer is a header and nothing else: decoding it would fail as invalid, so this code comes from the header.
    await expectCode(probeImage(pngHeader(100_000, 100_000)), 'image_too_large');
    await expectCode(probeImage(pngHeader(8000, 6000)), 'image_too_large'); // 48 MP > 40 MP
  });

  it('rejects files over 15 MB', async () => {
    const big = Buffer.alloc(16 * 1024 * 1024);
    big.set([0xff, 0xd8, 0xff, 0xe0]);
    await expectCode(probeImage(big), 'image_too_large');
    expect(IMAGE_LIMITS.maxBytes).toBe(15 * 1024 * 1024);
  });

  it('rejects tiny images as invalid_image', async () => {
    await expectCode(probeImage(await jpeg(150, 400)), 'invalid_image');
    await expect(probeImage(await jpeg(200, 260))).resolves.toMatchObject({ width: 200 });
  });

  it('chooses shrink-on-load factors by size', () => {
    const j = (w: number, h: number) => chooseDecodeShrink({ format: 'jpeg', width: w, height: h, orientation: 1, bytes: 1 });
    expect(j(4000, 3000)).toBeGreaterThanOrEqual(3); // 12 MP: JPEG DCT shrink 2 + reduce
    expect(j(1632, 1224)).toBe(1); // 2 MP: full size
    expect(chooseDecodeShrink({ format: 'png', width: 4000, height: 3000, orientation: 1, bytes: 1 })).toBeGreaterThan(2);
  });

  it('box-downsamples', () => {
    const src = { width: 6, height: 4, data: new Uint8Array(6 * 4 * 3).map((_, i) => (i % 3 === 0 ? (Math.floor(i / 3) % 6) * 10 : 0)) };
    const d = downsampleRgb(src, 2);
    expect([d.width, d.height]).toEqual([3, 2]);
    expect(d.data[0]).toBe(5);
    expect(d.data[3]).toBe(25);
  });
});
