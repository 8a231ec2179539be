import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, it, expect, beforeAll } from '@jest/globals';
import sharp from 'sharp';
import { SCAN_IMAGE_LIMITS } from '@cardlens/contracts';
import { validateImageBytes } from '../../src/images/validate-image';
import { expectAppError } from './helpers';

// A low short-side minimum so the small fixtures below exercise the other rules; the API's own is tested apart.
const LIMITS = { maxBytes: 15 * 1024 * 1024, maxPixels: 50_000_000, minShortSide: 50 };

/** Noise so the encoded files are not trivially small and cutting them in half really truncates pixel data. */
function noise(width: number, height: number, channels: 3 | 4 = 3): Buffer {
  const data = Buffer.alloc(width * height * channels);
  let seed = 12345;
  for (let i = 0; i < data.length; i += 1) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    data[i] = seed >>> 24;
  }
  return data;
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A structurally valid PNG whose IHDR declares width x height (1-bit grey) with a tiny IDAT: a pixel bomb. */
function pixelBombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('validateImageBytes', () => {
  let jpeg: Buffer;
  let png: Buffer;

  beforeAll(async () => {
    jpeg = await sharp(noise(320, 240), { raw: { width: 320, height: 240, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    png = await sharp(noise(200, 150, 4), { raw: { width: 200, height: 150, channels: 4 } }).png().toBuffer();
  });

  it('accepts a real JPEG and reports type, size, dimensions and sha256', async () => {
    await expect(validateImageBytes(jpeg, LIMITS)).resolves.toEqual({
      contentType: 'image/jpeg',
      width: 320,
      height: 240,
      sha256: sha256(jpeg),
      sizeBytes: jpeg.length,
    });
  });

  it('accepts a real PNG and reports type, size, dimensions and sha256', async () => {
    const result = await validateImageBytes(png, LIMITS);
    expect(result).toEqual({ contentType: 'image/png', width: 200, height: 150, sha256: sha256(png), sizeBytes: png.length });
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts a plain Uint8Array view (not a Buffer) with a byte offset', async () => {
    const backing = new Uint8Array(png.length + 10);
    backing.set(png, 10);
    const view = backing.subarray(10);
    await expect(validateImageBytes(view, LIMITS)).resolves.toMatchObject({ contentType: 'image/png', sha256: sha256(png) });
  });

  it('judges by bytes, not by a name or declared type: PNG bytes "named" .jpg are PNG', async () => {
    const upload = { originalname: 'card-front.jpg', mimetype: 'image/jpeg', buffer: png };
    const result = await validateImageBytes(upload.buffer, LIMITS);
    expect(result.contentType).toBe('image/png');
  });

  it("refuses a photo under the API's short-side minimum, saying why and what is needed", async () => {
    const small = await sharp(noise(150, 200), { raw: { width: 150, height: 200, channels: 3 } }).jpeg().toBuffer();
    const error = await expectAppError(validateImageBytes(small, SCAN_IMAGE_LIMITS), 'invalid_image');
    expect(error.detail).toBe(
      'the photo is 150 x 200 pixels, too small to grade: at least 200 pixels are needed on the short side, and 1000 or more with the card filling most of the frame for a full grade',
    );
    const enough = await sharp(noise(200, 260), { raw: { width: 200, height: 260, channels: 3 } }).jpeg().toBuffer();
    await expect(validateImageBytes(enough, SCAN_IMAGE_LIMITS)).resolves.toMatchObject({ width: 200, height: 260 });
  });

  it('judges the short side as displayed, after EXIF rotation', async () => {
    const turned = await sharp(noise(400, 150), { raw: { width: 400, height: 150, channels: 3 } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    await expectAppError(validateImageBytes(turned, SCAN_IMAGE_LIMITS), 'invalid_image', /150 x 400 pixels, too small to grade/);
  });

  it('reports dimensions as displayed when EXIF orientation rotates the image', async () => {
    const rotated = await sharp(noise(300, 100), { raw: { width: 300, height: 100, channels: 3 } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    await expect(validateImageBytes(rotated, LIMITS)).resolves.toMatchObject({ width: 100, height: 300 });
  });

  it.each([
    ['GIF', () => sharp(noise(16, 16), { raw: { width: 16, height: 16, channels: 3 } }).gif().toBuffer()],
    ['WebP', () => sharp(noise(16, 16), { raw: { width: 16, height: 16, channels: 3 } }).webp().toBuffer()],
    ['text', async () => Buffer.from('this is not an image, just some text\n')],
    ['empty', async () => Buffer.alloc(0)],
    ['SVG', async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>')],
    ['JPEG magic only', async () => Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
  ])('refuses %s as invalid_image', async (_name, make) => {
    const bytes = await make();
    await expectAppError(validateImageBytes(bytes, LIMITS), 'invalid_image', /JPEG or PNG|could not be decoded/);
  });

  it('refuses GIF/WebP/text with the "must be a JPEG or PNG image" detail', async () => {
    const gif = await sharp(noise(8, 8), { raw: { width: 8, height: 8, channels: 3 } }).gif().toBuffer();
    for (const bytes of [gif, Buffer.from('hello'), Buffer.alloc(0)]) {
      const error = await expectAppError(validateImageBytes(bytes, LIMITS), 'invalid_image');
      expect(error.detail).toContain('must be a JPEG or PNG image');
    }
  });

  it('refuses a 16 MB buffer as image_too_large before looking at it', async () => {
    const big = Buffer.alloc(16 * 1024 * 1024);
    jpeg.copy(big); // a JPEG start, so only the size can be the reason
    await expectAppError(validateImageBytes(big, LIMITS), 'image_too_large', 'image is larger than 15 MB');
  });

  it('accepts exactly maxBytes and refuses one byte more', async () => {
    await expect(validateImageBytes(png, { ...LIMITS, maxBytes: png.length })).resolves.toMatchObject({ sizeBytes: png.length });
    await expectAppError(validateImageBytes(png, { ...LIMITS, maxBytes: png.length - 1 }), 'image_too_large');
  });

  it('refuses a pixel-bomb PNG (header declares 100000 x 100000) without decoding it', async () => {
    const bomb = pixelBombPng(100_000, 100_000);
    expect(bomb.length).toBeLessThan(200);
    await expectAppError(validateImageBytes(bomb, LIMITS), 'invalid_image', 'image exceeds 50 megapixels');
  });

  it('applies maxPixels to real images too', async () => {
    await expectAppError(validateImageBytes(jpeg, { ...LIMITS, maxPixels: 320 * 240 - 1 }), 'invalid_image', /exceeds 0\.08 megapixels/);
    await expect(validateImageBytes(jpeg, { ...LIMITS, maxPixels: 320 * 240 })).resolves.toMatchObject({ width: 320 });
  });

  it('refuses a truncated JPEG (a real one cut in half)', async () => {
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    await expectAppError(validateImageBytes(truncated, LIMITS), 'invalid_image', 'image could not be decoded');
  });

  it('refuses a truncated progressive JPEG and a truncated PNG', async () => {
    const progressive = await sharp(noise(320, 240), { raw: { width: 320, height: 240, channels: 3 } })
      .jpeg({ progressive: true })
      .toBuffer();
    for (const bytes of [progressive, png]) {
      await expectAppError(validateImageBytes(bytes.subarray(0, Math.floor(bytes.length / 2)), LIMITS), 'invalid_image', 'image could not be decoded');
    }
  });

  it('refuses a PNG with corrupted pixel data', async () => {
    const corrupt = Buffer.from(png);
    // Scribble over the middle of the IDAT payload; the CRC no longer matches and the zlib stream is broken.
    corrupt.fill(0xaa, Math.floor(png.length / 3), Math.floor(png.length / 3) + 64);
    await expectAppError(validateImageBytes(corrupt, LIMITS), 'invalid_image', 'image could not be decoded');
  });

  it('never puts library error text in the detail', async () => {
    const error = await expectAppError(validateImageBytes(jpeg.subarray(0, 1000), LIMITS), 'invalid_image');
    expect(error.detail).not.toMatch(/vips|jpeg image|libpng|premature/i);
  });
});
