#!/usr/bin/env python3
"""The asset catalog holds what an upload and the first launch need, wired as Xcode reads it
(scripts/check-app, "assets"). App Store Connect refuses a build without a 1024-point app icon
or with an icon that has an alpha channel; none of that shows until an upload, so it fails here.

catalog   App/Assets.xcassets exists, every folder in it has a Contents.json that is a JSON
          object with Xcode's "info" (version 1), every file an entry names exists, and every
          image in a set is named by an entry (Xcode warns of an "unassigned child" otherwise).
project   App/project.yml makes the catalog a source of the app target (XcodeGen copies a
          .xcassets as a resource), and sets ASSETCATALOG_COMPILER_APPICON_NAME and
          ASSETCATALOG_COMPILER_GLOBAL_ACCENT_COLOR_NAME, each naming a set the catalog has.
icon      The icon set has Xcode's single-size iOS entry (idiom universal, platform ios, size
          1024x1024) naming a PNG that is 1024 x 1024 pixels, 8 bits a channel, with no alpha
          (IHDR colour type 4 or 6, or a tRNS chunk) and no colour profile other than sRGB.
accent    The accent colour set has a light (any) and a dark appearance, in sRGB components
          (0-1 floats, "0xNN" or 0-255 integers, as Xcode writes them), and each pair in
          CONTRAST_PAIRS below reaches its WCAG 2 contrast ratio.
launch    Info.plist's UILaunchScreen is a dictionary naming a UIColorName and/or UIImageName
          (an empty one shows a blank screen), each a set in the catalog; the colour has a dark
          appearance, so a phone in dark mode does not flash white.

What it cannot see: how the icon looks (App/README.md, "Ship it", says how it is drawn), Xcode's
own catalog compiler (actool) diagnostics beyond the above, and colours the views name themselves.

Usage: lint-assets.py ROOT [--catalog DIR] [--project FILE] [--info-plist FILE]...
  (defaults: App/Assets.xcassets, App/project.yml, App/Info.plist under ROOT)
Prints FILE:LINE: [rule] message for each finding; exit status 1 when there is one."""
import json
import os
import plistlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xcassets  # noqa: E402  (beside this file)

ICON_PIXELS = 1024
SET_EXTENSIONS = (".appiconset", ".colorset", ".imageset", ".symbolset", ".dataset")

# The backgrounds iOS draws the accent on, per appearance: the system background (white / black)
# and the grouped secondary background (Form and inset-grouped List: the page in light mode, the
# cells in dark mode).
BACKGROUNDS = {
    "any": (("system background #FFFFFF", "FFFFFF"), ("grouped background #F2F2F7", "F2F2F7")),
    "dark": (("system background #000000", "000000"), ("grouped background #1C1C1E", "1C1C1E")),
}
# The label iOS draws on an accent-filled control (.borderedProminent, a selected chip): white
# in both appearances.
FILLED_LABEL = ("white label", "FFFFFF")
# The checked pairs and their minimum WCAG ratio, per appearance:
# - the accent as text or a glyph (links, toolbar and list buttons, tinted symbols) on each
#   background: 4.5:1, WCAG's minimum for text of any size (1.4.3);
# - the filled label on the accent, light: 4.5:1 likewise;
# - the filled label on the accent, dark: 3:1, WCAG's minimum for large text and for a control
#   against what surrounds it (1.4.3, 1.4.11). A compromise, because 4.5:1 for this pair and
#   for the accent on #1C1C1E cannot both be had: 4.5:1 on #1C1C1E needs a relative luminance of
#   at least 0.228, white text 4.5:1 on the fill needs at most 0.183. Text in the accent (every
#   toolbar, list and link button, tinted symbols) is the more frequent and often the smaller,
#   so it keeps 4.5:1. iOS's own dark system blue, #0A84FF, sits the same way: 4.66:1 on
#   #1C1C1E, 3.65:1 under white.
TEXT_MINIMUM = 4.5
DARK_FILL_MINIMUM = 3.0


def contrast_pairs(look, accent):
    """[(description, foreground, background, minimum)] for one appearance; colours as (r, g, b)."""
    pairs = [(f"accent text on the {name}", accent, hex_rgb(value), TEXT_MINIMUM) for name, value in BACKGROUNDS[look]]
    minimum = TEXT_MINIMUM if look == "any" else DARK_FILL_MINIMUM
    pairs.append((f"{FILLED_LABEL[0]} on an accent-filled button", hex_rgb(FILLED_LABEL[1]), accent, minimum))
    return pairs


def listed(contents, key):
    """The dictionaries of a Contents.json's list `key` (Xcode's "images", "colors"...)."""
    items = contents.get(key)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def hex_rgb(text):
    return tuple(int(text[i:i + 2], 16) / 255 for i in (0, 2, 4))


def luminance(rgb):
    """WCAG 2 relative luminance of an sRGB colour."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def over(rgba, background):
    """A colour with alpha as it shows over an opaque background."""
    alpha = rgba[3]
    return tuple(rgba[k] * alpha + background[k] * (1 - alpha) for k in range(3))


def as_hex(rgb):
    return "#" + "".join(f"{round(c * 255):02X}" for c in rgb)


class Lint:
    def __init__(self, root, catalog):
        self.root, self.catalog, self.findings = root, catalog, []
        self.contents = {}  # folder -> parsed Contents.json (only the ones that parsed)
        self.unreadable = set()  # names of the set folders whose Contents.json did not
        self.accent_summary = []  # per appearance: "light #RRGGBB 7.03 / 6.30 / 7.03", the pairs' ratios

    def find(self, path, rule, message, line=1):
        self.findings.append(f"{os.path.relpath(path, self.root)}:{line}: [{rule}] {message}")

    # --- catalog ---------------------------------------------------------------------------
    def check_catalog(self):
        if not os.path.isdir(self.catalog):
            self.find(self.catalog, "catalog", "the asset catalog is missing: the app would ship without an icon "
                      "(App Store Connect refuses it), accent colour or launch screen; see App/README.md, \"Ship it\"")
            return False
        for folder, dirs, files in os.walk(self.catalog):
            dirs.sort()
            path = os.path.join(folder, "Contents.json")
            if "Contents.json" not in files:
                self.find(folder, "catalog", "no Contents.json: Xcode ignores a folder of an asset catalog without one")
                self.unreadable.add(os.path.basename(folder))
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    contents = json.load(f)
            except (ValueError, UnicodeDecodeError) as error:
                self.find(path, "catalog", f"not valid JSON ({error})")
                self.unreadable.add(os.path.basename(folder))
                continue
            info = contents.get("info") if isinstance(contents, dict) else None
            if not isinstance(info, dict) or info.get("version") != 1 or not isinstance(info.get("author"), str):
                self.find(path, "catalog", "not Xcode's format: a JSON object with \"info\" : "
                          "{ \"author\" : \"xcode\", \"version\" : 1 }")
                self.unreadable.add(os.path.basename(folder))
                continue
            self.contents[folder] = contents
            if folder.endswith(SET_EXTENSIONS):
                self.check_files(folder, files, contents)
        return True

    def check_files(self, folder, files, contents):
        entries = listed(contents, "images") + listed(contents, "data") + listed(contents, "symbols")
        named = {e["filename"] for e in entries if isinstance(e.get("filename"), str)}
        path = os.path.join(folder, "Contents.json")
        for name in sorted(named - set(files)):
            self.find(path, "catalog", f"names {name}, which is not in {os.path.basename(folder)}")
        for name in sorted(set(files) - named - {"Contents.json"}):
            if not name.startswith("."):
                self.find(os.path.join(folder, name), "catalog",
                          "no entry of Contents.json names this file (Xcode's \"unassigned child\"): assign it or delete it")

    def set_contents(self, name, extension):
        """(folder, parsed Contents.json) of the set `name` (anywhere in the catalog, as Xcode
        finds it); None when there is none; False when it exists but its Contents.json is
        unreadable (a finding already says so)."""
        for folder, contents in sorted(self.contents.items()):
            if os.path.basename(folder) == name + extension:
                return folder, contents
        return False if name + extension in self.unreadable else None

    # --- project ---------------------------------------------------------------------------
    def check_project(self, project):
        """{setting: value} of the two catalog settings project.yml gives."""
        try:
            with open(project, encoding="utf-8") as f:
                spec = f.read()
        except OSError as error:
            self.find(project, "project", f"cannot be read ({error})")
            return {}
        name = os.path.basename(self.catalog)
        # The items of each `sources:` list (lines indented deeper than the key), not fileGroups,
        # whose files are shown in the navigator but not built.
        sources = "\n".join(m.group(2) for m in re.finditer(r"^( *)sources:[^\n]*\n((?:\1 +\S[^\n]*\n|\s*\n)*)", spec, re.M))
        if not re.search(r"^\s*-\s*(?:path:\s*)?[\"']?" + re.escape(name) + r"[\"']?\s*$", sources, re.M):
            self.find(project, "project", f"the app target's sources do not list {name} "
                      f"(`- path: {name}`): the app would be built without its icon and colours")
        settings = {}
        for key in ("ASSETCATALOG_COMPILER_APPICON_NAME", "ASSETCATALOG_COMPILER_GLOBAL_ACCENT_COLOR_NAME"):
            m = re.search(r"^\s*" + key + r"\s*:\s*[\"']?([\w-]+)[\"']?\s*(?:#.*)?$", spec, re.M)
            if m:
                settings[key] = m.group(1)
            else:
                self.find(project, "project", f"no {key} in the target's settings: Xcode would not "
                          f"use the catalog's {'app icon' if 'APPICON' in key else 'accent colour'}")
        return settings

    # --- icon ------------------------------------------------------------------------------
    def check_icon(self, name):
        found = self.set_contents(name, ".appiconset")
        if found is False:
            return
        if not found:
            self.find(self.catalog, "icon", f"no {name}.appiconset: App Store Connect refuses a build without an app icon")
            return
        folder, contents = found
        path = os.path.join(folder, "Contents.json")
        single = [e for e in listed(contents, "images") if e.get("idiom") == "universal" and e.get("platform") == "ios"
                  and e.get("size") == f"{ICON_PIXELS}x{ICON_PIXELS}"]
        main = [e for e in single if xcassets.appearance(e) == "any"]
        if not main:
            self.find(path, "icon", "no single-size iOS entry (idiom universal, platform ios, size 1024x1024, "
                      "no appearance): Xcode 15 and later write one for a one-image icon")
            return
        for entry in single:
            if not entry.get("filename"):
                if entry in main:
                    self.find(path, "icon", "the 1024x1024 entry names no image: App Store Connect refuses a build "
                              "without an app icon (draw it: python3 App/Checks/draw-icon.py)")
                continue
            png = os.path.join(folder, entry["filename"])
            if os.path.isfile(png):
                self.check_icon_png(png, opaque=entry in main)

    def check_icon_png(self, png, opaque):
        try:
            chunks = xcassets.png_chunks(png)
        except (OSError, ValueError) as error:
            self.find(png, "icon", f"cannot be read as a PNG: {error}")
            return
        width, height, depth, colour_type = xcassets.png_header(chunks)
        kinds = {kind for kind, _ in chunks}
        if (width, height) != (ICON_PIXELS, ICON_PIXELS):
            self.find(png, "icon", f"{width} x {height} pixels: the icon must be {ICON_PIXELS} x {ICON_PIXELS}")
        if depth != 8:
            self.find(png, "icon", f"{depth} bits a channel: export 8-bit")
        if opaque and (colour_type in xcassets.ALPHA_COLOUR_TYPES or "tRNS" in kinds):
            how = "an alpha channel" if colour_type in xcassets.ALPHA_COLOUR_TYPES else "transparency (tRNS)"
            self.find(png, "icon", f"has {how}: App Store Connect refuses an app icon with alpha; "
                      "export it without (RGB, colour type 2)")
        for kind, data in chunks:
            if kind == "iCCP":
                profile = data.split(b"\x00", 1)[0].decode("latin-1")
                if "srgb" not in profile.lower():
                    self.find(png, "icon", f"embeds the colour profile '{profile}': export it as sRGB")

    # --- accent ----------------------------------------------------------------------------
    def appearances(self, folder, contents, rule):
        """{appearance: (r, g, b, a)} of a colour set; findings when a colour is unreadable or
        there is no light or no dark appearance."""
        name = os.path.basename(folder).removesuffix(".colorset")
        path = os.path.join(folder, "Contents.json")
        colours = {}
        for entry in listed(contents, "colors"):
            if entry.get("idiom", "universal") not in ("universal", "iphone"):
                continue
            look = xcassets.appearance(entry)
            if look == "light":
                look = "any"
            try:
                colours[look] = xcassets.rgba(entry)
            except ValueError as error:
                self.find(path, rule, f"the {'dark' if look == 'dark' else 'light (any)'} colour: {error}")
                colours[look] = None
        for look, label in (("any", "light (any)"), ("dark", "dark")):
            if look not in colours:
                self.find(path, rule, f"{name} has no {label} appearance: add it in Xcode's attributes "
                          "inspector (Appearances: Any, Dark)")
        return {look: value for look, value in colours.items() if value is not None}

    def check_accent(self, name):
        found = self.set_contents(name, ".colorset")
        if found is False:
            return
        if not found:
            self.find(self.catalog, "accent", f"no {name}.colorset, which ASSETCATALOG_COMPILER_GLOBAL_ACCENT_COLOR_NAME "
                      "names: the controls would take iOS's blue")
            return
        folder, contents = found
        colours = self.appearances(folder, contents, "accent")
        for look, colour in sorted(colours.items()):
            backdrop = hex_rgb(BACKGROUNDS[look][0][1])
            accent = over(colour, backdrop)
            ratios = []
            for what, foreground, background, minimum in contrast_pairs(look, accent):
                ratio = contrast(foreground, background)
                ratios.append(ratio)
                if ratio < minimum:
                    self.find(os.path.join(folder, "Contents.json"), "accent",
                              f"{'dark' if look == 'dark' else 'light'} {as_hex(accent)}: {what} is {ratio:.2f}:1, "
                              f"under {minimum}:1 (lint-assets.py says which pairs and why)")
            self.accent_summary.append(f"{'dark' if look == 'dark' else 'light'} {as_hex(accent)} "
                                       f"{' / '.join(f'{r:.2f}' for r in ratios)}")

    # --- launch ----------------------------------------------------------------------------
    def check_launch(self, info_path):
        try:
            with open(info_path, "rb") as f:
                raw = f.read()
            info = plistlib.loads(raw)
        except Exception as error:  # plistlib raises several types for a bad file
            self.find(info_path, "launch", f"cannot be read ({error})")
            return
        line = next((n for n, text in enumerate(raw.decode("utf-8", "replace").split("\n"), 1)
                     if "<key>UILaunchScreen</key>" in text), 1)
        screen = info.get("UILaunchScreen")
        if not isinstance(screen, dict) or not (screen.get("UIColorName") or screen.get("UIImageName")):
            self.find(info_path, "launch", "UILaunchScreen is missing, or names no UIColorName or UIImageName: "
                      "the launch screen is blank; name the catalog's LaunchBackground and LaunchMark", line)
            return
        for key, extension in (("UIColorName", ".colorset"), ("UIImageName", ".imageset")):
            name = screen.get(key)
            found = name and self.set_contents(name, extension)
            if name and found is None:
                self.find(info_path, "launch", f"{key} '{name}': the catalog has no {name}{extension}, "
                          "and iOS draws nothing for a name it cannot find", line)
            elif found and extension == ".colorset":
                self.appearances(*found, "launch")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    root = args[0]
    catalog = os.path.join(root, "App/Assets.xcassets")
    project = os.path.join(root, "App/project.yml")
    plists = []
    rest = iter(args[1:])
    for arg in rest:
        if arg not in ("--catalog", "--project", "--info-plist"):
            sys.exit(f"lint-assets: unknown argument '{arg}' (see the usage at the top of this file)")
        value = next(rest, None) or sys.exit(f"lint-assets: {arg} needs a path")
        if arg == "--catalog":
            catalog = value
        elif arg == "--project":
            project = value
        else:
            plists.append(value)
    lint = Lint(root, catalog)
    settings = lint.check_project(project)
    if lint.check_catalog():
        # Without a setting, the sets a new Xcode project names are checked all the same.
        lint.check_icon(settings.get("ASSETCATALOG_COMPILER_APPICON_NAME", "AppIcon"))
        lint.check_accent(settings.get("ASSETCATALOG_COMPILER_GLOBAL_ACCENT_COLOR_NAME", "AccentColor"))
        for info in plists or [os.path.join(root, "App/Info.plist")]:
            lint.check_launch(info)
    print("\n".join(lint.findings)) if lint.findings else None
    sets = sorted(os.path.basename(f) for f in lint.contents if f.endswith(SET_EXTENSIONS))
    accent = f"; accent (text on the two backgrounds / filled label): {', '.join(lint.accent_summary)}" \
        if lint.accent_summary else ""
    print(f"{os.path.relpath(catalog, root)}: {', '.join(sets) or 'no sets'}{accent}; {len(lint.findings)} findings",
          file=sys.stderr)
    return 1 if lint.findings else 0


sys.exit(main())
