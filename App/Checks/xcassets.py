"""What App/Checks/lint-assets.py and App/Checks/draw-icon.py share about an Xcode asset catalog:
Contents.json as Xcode writes it, a colour set's components, and PNG files (written from rows of
bytes, read back chunk by chunk). Standard library only: the checks run where no image library is
installed."""
import json
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# IHDR colour types that carry an alpha channel (greyscale + alpha, RGB + alpha).
ALPHA_COLOUR_TYPES = {4, 6}
XCODE_INFO = {"author": "xcode", "version": 1}


def contents_json(obj):
    """obj as Xcode writes a Contents.json: keys sorted, two-space indent, `"key" : value`."""
    return json.dumps(obj, indent=2, sort_keys=True, separators=(",", " : ")) + "\n"


def component(text):
    """One colour component as Xcode writes it, as a float in 0...1: "0.271" (floating point),
    "0x45" (8-bit hexadecimal) or "69" (8-bit integer). ValueError for anything else."""
    text = str(text).strip()
    try:
        if text.lower().startswith("0x"):
            value = int(text, 16) / 255
        elif "." in text:
            value = float(text)
        else:
            value = int(text) / 255
    except ValueError:
        raise ValueError(f"'{text}' is not a component as Xcode writes one (0.271, 0x45 or 69)") from None
    if not 0 <= value <= 1:
        raise ValueError(f"'{text}' is outside 0...1 (0x00...0xFF)")
    return value


def appearance(entry):
    """'dark', 'light' or 'any': the luminosity appearance a colour or image entry is for."""
    for item in entry.get("appearances", []):
        if item.get("appearance") == "luminosity":
            return item.get("value", "any")
    return "any"


def rgba(entry):
    """(red, green, blue, alpha) in 0...1 of a colour set entry. ValueError, saying why, for a
    colour whose components cannot be read as sRGB (a system colour reference, another colour
    space)."""
    colour = entry.get("color")
    if not isinstance(colour, dict):
        raise ValueError("the entry has no \"color\"")
    space = colour.get("color-space")
    parts = colour.get("components")
    if "reference" in colour or "platform" in colour:
        raise ValueError(f"'{colour.get('reference')}' is a system colour, whose value this check cannot know: "
                         "give sRGB components")
    if not isinstance(parts, dict):
        raise ValueError("the colour has no \"components\"")
    if space in ("srgb", "extended-srgb"):
        values = tuple(component(parts.get(key, "")) for key in ("red", "green", "blue"))
    elif space in ("gray-gamma-22", "extended-gray"):
        values = (component(parts.get("white", "")),) * 3
    else:
        raise ValueError(f"colour space '{space}' is not sRGB: choose sRGB in Xcode's colour inspector")
    return values + (component(parts.get("alpha", "1.000")),)


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _filtered(rows, stride):
    """Each row with the PNG filter (None, Sub or Up) whose bytes sum smallest: a deterministic
    choice, so the same pixels always give the same file."""
    out, previous = bytearray(), bytes(len(rows[0]))
    for row in rows:
        sub = bytes((row[i] - (row[i - stride] if i >= stride else 0)) & 0xFF for i in range(len(row)))
        up = bytes((row[i] - previous[i]) & 0xFF for i in range(len(row)))
        candidates = [(0, row), (1, sub), (2, up)]
        kind, data = min(candidates, key=lambda c: sum(b if b < 128 else 256 - b for b in c[1]))
        out += bytes([kind]) + data
        previous = row
    return bytes(out)


def write_png(path, width, rows, alpha):
    """An 8-bit sRGB PNG from rows of bytes (RGB, or RGBA when alpha): colour type 2 has no alpha
    channel at all, which App Store Connect requires of an app icon."""
    stride = 4 if alpha else 3
    header = struct.pack(">IIBBBBB", width, len(rows), 8, 6 if alpha else 2, 0, 0, 0)
    data = (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"sRGB", b"\x00")
            + _chunk(b"IDAT", zlib.compress(_filtered(rows, stride), 9)) + _chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def png_chunks(path):
    """[(type, data)] of a PNG file. ValueError, saying why, for one that is not a whole PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG file (no PNG signature)")
    chunks, at = [], len(PNG_SIGNATURE)
    while at < len(data):
        if at + 8 > len(data):
            raise ValueError("truncated (a chunk header is cut off)")
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        crc = data[at + 8 + length:at + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise ValueError(f"truncated (chunk {kind.decode('latin-1')} is cut off)")
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body):
            raise ValueError(f"damaged (chunk {kind.decode('latin-1')} fails its checksum)")
        chunks.append((kind.decode("latin-1"), body))
        at += 12 + length
    if not chunks or chunks[0][0] != "IHDR" or len(chunks[0][1]) != 13:
        raise ValueError("no IHDR chunk first")
    if chunks[-1][0] != "IEND":
        raise ValueError("truncated (no IEND chunk)")
    return chunks


def png_header(chunks):
    """(width, height, bit depth, colour type) from a PNG's IHDR."""
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[0][1][:10])
    return width, height, depth, colour_type
