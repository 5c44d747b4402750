"""Draw the extension icon, images/icon.png (128x128: a tile with three bars over a baseline), without PIL:
    python3 images/make_icon.py images/icon.png
"""
import struct, zlib, sys
W = H = 128
def inside_round(x, y, r=22):
    cx = min(max(x, r), W - 1 - r); cy = min(max(y, r), H - 1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
rows = []
bars = [(30, 50, 74, (0x4e, 0xc9, 0xb0)), (56, 76, 48, (0xf2, 0xc1, 0x4e)), (82, 102, 26, (0xf0, 0x6a, 0x5a))]
for y in range(H):
    row = bytearray([0])
    for x in range(W):
        if not inside_round(x, y):
            row += bytes([0, 0, 0, 0]); continue
        px = (0x1e, 0x2a, 0x3a, 255)
        for x0, x1, top, col in bars:
            if x0 <= x < x1 and top <= y < 100:
                px = (*col, 255)
        if 106 <= y < 110 and 24 <= x < 104:
            px = (0xd0, 0xd8, 0xe0, 255)
        row += bytes(px)
    rows.append(bytes(row))
raw = zlib.compress(b"".join(rows), 9)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
