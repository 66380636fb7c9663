#!/usr/bin/env python3
"""Draws the app icon and the launch screen's mark into App/Assets.xcassets, in the accent
colours App/Assets.xcassets/AccentColor.colorset declares (change those, then run this again).

The picture: a banknote (the notes the wallet carries) with a coin medallion, tilted, and an
orange "offline" badge with a crossed-out Wi-Fi sign (orange is the app's colour for being
offline). Bold shapes only, so it still reads at the home screen's 60 px.

  AppIcon.appiconset/AppIcon.png     1024 x 1024, RGB without alpha (App Store Connect refuses an
                                     icon with an alpha channel), on an accent-coloured ground
  LaunchMark.imageset/*.png          the same note and badge, without the ground, at 2x and 3x, in
                                     the light and the dark accent (the launch screen's image)

Every shape is a signed distance field evaluated once per pixel, its coverage the distance
clamped to one pixel: anti-aliased edges without supersampling, standard library only. The same
colours give the same files, byte for byte (zlib level 9, filters chosen deterministically).

Usage: draw-icon.py [ROOT]   (ROOT: the repository, default: the current directory)"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xcassets  # noqa: E402  (beside this file)

ICON_SIZE = 1024
# The launch mark's size in points, and the part of the icon's 1024-unit square it shows.
MARK_POINTS = 160
MARK_BOX = (96.0, 32.0, 976.0, 912.0)

PAPER_ICON = (0.973, 0.976, 1.0)  # the note on the icon: near-white, a touch of blue
BADGE = (1.0, 0.584, 0.0)  # #FF9500, iOS's system orange (light), the app's "Offline" colour
WHITE = (1.0, 1.0, 1.0)

# The note, in the icon's 1024-unit square: centre, half-size, corner radius, tilt.
NOTE_CENTRE = (500.0, 560.0)
NOTE_HALF = (350.0, 210.0)
NOTE_RADIUS = 56.0
NOTE_TILT = math.radians(-12)
BADGE_CENTRE = (770.0, 290.0)
BADGE_RADIUS = 150.0
BADGE_GAP = 26.0


# --- signed distances (negative inside), in the icon's units ---------------------------------

def rounded_box(x, y, hx, hy, r):
    qx, qy = abs(x) - hx + r, abs(y) - hy + r
    return math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - r


def circle(x, y, cx, cy, r):
    return math.hypot(x - cx, y - cy) - r


def segment(x, y, ax, ay, bx, by, width):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy) - width / 2


def arc(x, y, cx, cy, r, width, half_angle):
    """A stroke of radius r around (cx, cy), opening upwards half_angle either side, round caps."""
    dx, dy = x - cx, cy - y
    if abs(math.atan2(dx, dy)) <= half_angle:
        return abs(math.hypot(dx, dy) - r) - width / 2
    ex, ey = r * math.sin(half_angle), r * math.cos(half_angle)
    return min(math.hypot(dx - ex, dy - ey), math.hypot(dx + ex, dy - ey)) - width / 2


def note_frame(x, y):
    """(x, y) in the note's own frame: origin at its centre, axes along its edges."""
    dx, dy = x - NOTE_CENTRE[0], y - NOTE_CENTRE[1]
    c, s = math.cos(NOTE_TILT), math.sin(NOTE_TILT)
    return c * dx + s * dy, -s * dx + c * dy


def note(x, y):
    u, v = note_frame(x, y)
    return rounded_box(u, v, NOTE_HALF[0], NOTE_HALF[1], NOTE_RADIUS)


def note_border(x, y):
    u, v = note_frame(x, y)
    inset = 38.0
    return abs(rounded_box(u, v, NOTE_HALF[0] - inset, NOTE_HALF[1] - inset, NOTE_RADIUS - inset / 2)) - 9.0


def medallion(x, y):
    u, v = note_frame(x, y)
    return math.hypot(u, v) - 118.0


def medallion_ring(x, y):
    u, v = note_frame(x, y)
    return abs(math.hypot(u, v) - 90.0) - 7.0


def pips(x, y):
    u, v = note_frame(x, y)
    return min(math.hypot(u - 232.0, v), math.hypot(u + 232.0, v)) - 30.0


def badge_gap(x, y):
    return circle(x, y, *BADGE_CENTRE, BADGE_RADIUS + BADGE_GAP)


def badge(x, y):
    return circle(x, y, *BADGE_CENTRE, BADGE_RADIUS)


def signal(x, y):
    """Wi-Fi: a dot and two arcs above it."""
    cx, cy = BADGE_CENTRE[0], BADGE_CENTRE[1] + 66.0
    return min(circle(x, y, cx, cy, 20.0),
               arc(x, y, cx, cy, 66.0, 26.0, math.radians(46)),
               arc(x, y, cx, cy, 114.0, 26.0, math.radians(46)))


SLASH = (BADGE_CENTRE[0] - 82.0, BADGE_CENTRE[1] - 82.0, BADGE_CENTRE[0] + 82.0, BADGE_CENTRE[1] + 82.0)


def slash_gap(x, y):
    return segment(x, y, *SLASH, 50.0)


def slash(x, y):
    return segment(x, y, *SLASH, 26.0)


# --- drawing ---------------------------------------------------------------------------------

class Canvas:
    """Premultiplied RGBA floats; a pixel (i, j) shows the icon units around `origin + (i + 0.5) *
    unit`."""

    def __init__(self, size, origin, unit, ground=None):
        self.size, self.origin, self.unit = size, origin, unit
        self.pixels = [[0.0, 0.0, 0.0, 0.0] for _ in range(size * size)]
        if ground:
            for j in range(size):
                colour = ground(self.origin[1] + (j + 0.5) * unit)
                for i in range(size):
                    self.pixels[j * size + i] = [*colour, 1.0]

    def paint(self, shape, colour, reach, alpha=1.0):
        """Composites colour (or colour(y), y in icon units) over the pixels shape covers (colour
        None: erases to transparent).
        reach: (x0, y0, x1, y1), the icon units outside of which the shape is surely absent."""
        lo = [max(0, int((reach[k] - self.origin[k]) / self.unit) - 1) for k in (0, 1)]
        hi = [min(self.size, int((reach[k + 2] - self.origin[k]) / self.unit) + 2) for k in (0, 1)]
        for j in range(lo[1], hi[1]):
            y = self.origin[1] + (j + 0.5) * self.unit
            for i in range(lo[0], hi[0]):
                x = self.origin[0] + (i + 0.5) * self.unit
                cover = min(1.0, max(0.0, 0.5 - shape(x, y) / self.unit)) * alpha
                if cover <= 0.0:
                    continue
                pixel = self.pixels[j * self.size + i]
                for k in range(4):
                    pixel[k] *= 1.0 - cover
                if colour is not None:
                    rgb = colour(y) if callable(colour) else colour
                    for k in range(3):
                        pixel[k] += rgb[k] * cover
                    pixel[3] += cover

    def rows(self, alpha):
        def byte(value):
            return max(0, min(255, round(value * 255)))

        rows = []
        for j in range(self.size):
            row = bytearray()
            for pixel in self.pixels[j * self.size:(j + 1) * self.size]:
                a = pixel[3]
                rgb = [pixel[k] / a if a > 0 else 0.0 for k in range(3)]
                row += bytes(byte(c) for c in rgb) + (bytes([byte(a)]) if alpha else b"")
            rows.append(bytes(row))
        return rows


def draw(canvas, paper, ink, badge_ground):
    """The note and the badge. paper: the note's colour; ink: its engraving (None: cut out);
    badge_ground: the colour, or colour(y), of the gap around the badge (None: transparent)."""
    note_reach = (80.0, 230.0, 920.0, 890.0)
    canvas.paint(note, paper, note_reach)
    canvas.paint(note_border, ink, note_reach, alpha=0.35)
    canvas.paint(pips, ink, note_reach, alpha=0.35)
    canvas.paint(medallion, ink, (360.0, 420.0, 640.0, 700.0))
    canvas.paint(medallion_ring, paper, (400.0, 460.0, 600.0, 660.0))
    gap = BADGE_RADIUS + BADGE_GAP
    badge_reach = (BADGE_CENTRE[0] - gap, BADGE_CENTRE[1] - gap, BADGE_CENTRE[0] + gap, BADGE_CENTRE[1] + gap)
    canvas.paint(badge_gap, badge_ground, badge_reach)
    canvas.paint(badge, BADGE, badge_reach)
    canvas.paint(signal, WHITE, badge_reach)
    canvas.paint(slash_gap, BADGE, badge_reach)
    canvas.paint(slash, WHITE, badge_reach)


def mix(a, b, t):
    return tuple(a[k] + (b[k] - a[k]) * t for k in range(3))


def accents(root):
    """{'any': (r, g, b), 'dark': (r, g, b)} from the accent colour set."""
    path = os.path.join(root, "App/Assets.xcassets/AccentColor.colorset/Contents.json")
    with open(path, encoding="utf-8") as f:
        entries = json.load(f)["colors"]
    return {xcassets.appearance(e): xcassets.rgba(e)[:3] for e in entries}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    catalog = os.path.join(root, "App/Assets.xcassets")
    colours = accents(root)
    light, dark = colours["any"], colours.get("dark", colours["any"])

    # The icon: the light accent as a top-to-bottom gradient, lighter above, deeper below.
    top, bottom = mix(light, WHITE, 0.14), mix(light, (0.0, 0.0, 0.0), 0.22)

    def ground(y):
        return mix(top, bottom, y / ICON_SIZE)

    icon = Canvas(ICON_SIZE, (0.0, 0.0), 1.0, ground)
    draw(icon, PAPER_ICON, light, ground)
    icon_set = os.path.join(catalog, "AppIcon.appiconset")
    os.makedirs(icon_set, exist_ok=True)
    xcassets.write_png(os.path.join(icon_set, "AppIcon.png"), ICON_SIZE, icon.rows(alpha=False), alpha=False)

    # The launch mark: the note in the accent, its engraving cut out to the launch background.
    mark_set = os.path.join(catalog, "LaunchMark.imageset")
    os.makedirs(mark_set, exist_ok=True)
    images = []
    # Xcode's order: by scale, each with its light (any) and dark appearance; iPhones are 2x or
    # 3x, so the 1x slots stay empty, as Xcode leaves an unfilled slot.
    for scale in (1, 2, 3):
        for look, paper in (("any", light), ("dark", dark)):
            entry = {"idiom": "universal", "scale": f"{scale}x"}
            if look == "dark":
                entry["appearances"] = [{"appearance": "luminosity", "value": "dark"}]
            if scale > 1:
                size = MARK_POINTS * scale
                canvas = Canvas(size, MARK_BOX[:2], (MARK_BOX[2] - MARK_BOX[0]) / size)
                draw(canvas, paper, None, None)
                entry["filename"] = f"LaunchMark{'-dark' if look == 'dark' else ''}@{scale}x.png"
                xcassets.write_png(os.path.join(mark_set, entry["filename"]), size, canvas.rows(alpha=True), alpha=True)
            images.append(entry)
    with open(os.path.join(mark_set, "Contents.json"), "w", encoding="utf-8") as f:
        f.write(xcassets.contents_json({"images": images, "info": xcassets.XCODE_INFO}))
    with open(os.path.join(icon_set, "Contents.json"), "w", encoding="utf-8") as f:
        f.write(xcassets.contents_json({
            "images": [{"filename": "AppIcon.png", "idiom": "universal", "platform": "ios", "size": "1024x1024"}],
            "info": xcassets.XCODE_INFO}))
    print(f"draw-icon: wrote {icon_set}/AppIcon.png and {mark_set}/ ({sum('filename' in i for i in images)} images)")


main()
