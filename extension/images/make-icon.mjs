// Draws images/icon.png (128x128 RGBA): a rounded square, a host node with two allowed
// connections (green) and one denied (red, crossed). Plain zlib: no image library needed.
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';

const N = 128;
const px = new Float64Array(N * N * 4);
const dSeg = (x, y, ax, ay, bx, by) => {
  const vx = bx - ax, vy = by - ay, t = Math.max(0, Math.min(1, ((x - ax) * vx + (y - ay) * vy) / (vx * vx + vy * vy)));
  return Math.hypot(x - ax - t * vx, y - ay - t * vy);
};
const roundRect = (x, y) => {
  const r = 24, qx = Math.max(Math.abs(x - 64) - (64 - r - 2), 0), qy = Math.max(Math.abs(y - 64) - (64 - r - 2), 0);
  return Math.hypot(qx, qy) - r;
};
const shapes = [
  [(x, y) => roundRect(x, y), [0x1b, 0x3a, 0x5c]],
  [(x, y) => dSeg(x, y, 38, 64, 96, 34) - 4, [0x4c, 0xc2, 0x7a]],
  [(x, y) => dSeg(x, y, 38, 64, 96, 64) - 4, [0x4c, 0xc2, 0x7a]],
  [(x, y) => dSeg(x, y, 38, 64, 74, 85) - 4, [0xe0, 0x5a, 0x4f]],
  [(x, y) => Math.min(dSeg(x, y, 80, 84, 96, 100), dSeg(x, y, 96, 84, 80, 100)) - 4, [0xe0, 0x5a, 0x4f]],
  [(x, y) => Math.hypot(x - 38, y - 64) - 14, [0xff, 0xff, 0xff]],
  [(x, y) => Math.hypot(x - 98, y - 34) - 9, [0xff, 0xff, 0xff]],
  [(x, y) => Math.hypot(x - 98, y - 64) - 9, [0xff, 0xff, 0xff]],
];
for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) {
  const i = (y * N + x) * 4;
  for (const [sdf, [r, g, b]] of shapes) {
    const a = Math.max(0, Math.min(1, 0.5 - sdf(x + 0.5, y + 0.5)));
    if (a === 0) continue;
    const da = px[i + 3], oa = a + da * (1 - a);
    for (const [k, c] of [[0, r], [1, g], [2, b]]) px[i + k] = (c * a + px[i + k] * da * (1 - a)) / oa;
    px[i + 3] = oa;
  }
}
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) {
  raw[y * (N * 4 + 1)] = 0;
  for (let x = 0; x < N * 4; x++) raw[y * (N * 4 + 1) + 1 + x] = Math.round(x % 4 === 3 ? px[y * N * 4 + x] * 255 : px[y * N * 4 + x]);
}
const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
const crc = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
const chunk = (type, data) => {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
  return Buffer.concat([len, td, c]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0); ihdr.writeUInt32BE(N, 4); ihdr[8] = 8; ihdr[9] = 6;
writeFileSync(new URL('./icon.png', import.meta.url), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]));
