#!/usr/bin/env python3
"""The machine-checkable part of the app's accessibility (scripts/check-app, "accessibility").

Over App/Sources (views and the adapters' SwiftUI views), on the source with comments and string
text blanked, brace- and parenthesis-aware:

  font     no fixed font size: `.system(size:` (so `.font(.system(size: 14))` and
           `Font.system(size:)`), or `.custom(name, size:)` without `relativeTo:`. A fixed size
           ignores Dynamic Type; use a text style (`.font(.body)`, `.system(.title, design:)`),
           `.custom(_:size:relativeTo:)`, or `@ScaledMetric` for a size that is not text.
  button   a control whose label is only images (`Button { ... } label: { Image(...) }`,
           `Button(action:) { Image(...) }`, `ShareLink(item:) { Image(...) }`, also Link,
           Menu, Toggle, NavigationLink) with no `.accessibilityLabel` on the control: VoiceOver
           would read the symbol's name, or nothing. A label with a `Text`, a `Label` or another
           view of the app (which speaks for itself) is not image-only.
  image    an `Image(...)` outside a control's label that is neither hidden nor labelled: no
           `.accessibilityHidden` / `.accessibilityLabel` on it, nor on a view around it, and no
           `.accessibilityElement()` / `.accessibilityElement(children: .ignore)` around it
           (whose own label then speaks for it). `Image(decorative:)` and
           `Image(_:label:)` are fine as they are.

What it cannot see: a modifier applied where a computed view is used (`icon.accessibilityHidden
(true)`) rather than inside it (put it inside), and whether a hint is needed: hints, layouts at
the accessibility sizes, announcements and reduce motion are checked by reading the views
(App/README.md, "Accessibility").

Usage: lint-accessibility.py ROOT [FILES...]   (no FILES: every .swift file under App/Sources)
Prints FILE:LINE: [rule] message per finding; exit status 1 when there is one.
"""

import os
import re
import sys

CONTROLS = {"Button", "ShareLink", "Link", "Menu", "Toggle", "NavigationLink"}
# Views and values that say nothing to VoiceOver: a label made only of these is image-only.
SILENT = {
    "Image", "HStack", "VStack", "ZStack", "Group", "Spacer", "Circle", "Capsule", "Rectangle",
    "RoundedRectangle", "Ellipse", "Color", "Font", "EdgeInsets", "LinearGradient", "Gradient",
}
# Modifiers that make an image (or the view around it) speak, or keep it quiet.
COVERING = {"accessibilityHidden", "accessibilityLabel"}
OPENERS = {"(": ")", "{": "}", "[": "]"}


def mask(text):
    """`text` with comments and string literal contents (interpolations included) blanked to
    spaces, the quote characters kept: same length and line structure, so positions map back."""
    out = list(text)
    i, n = 0, len(text)
    # Contexts: ["code", paren depth] (an interpolation when not the outermost) or
    # ["string", closing delimiter, hashes].
    stack = [["code", 0]]

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ctx = stack[-1]
        if ctx[0] == "code":
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
                continue
            if text.startswith("/*", i):
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
                blank(i, j)
                i = j
                continue
            m = re.match(r'(#*)("""|")', text[i:i + 8])
            if m:
                hashes, quotes = m.group(1), m.group(2)
                blank(i, i + len(hashes))
                stack.append(["string", quotes + hashes, hashes])
                i += len(m.group(0))
                continue
            if len(stack) > 1:
                blank(i, i + 1)  # interpolated code is string text here
            if text[i] == "(":
                ctx[1] += 1
            elif text[i] == ")":
                if ctx[1] == 0 and len(stack) > 1:
                    stack.pop()  # the interpolation's end: back in its string
                    i += 1
                    continue
                ctx[1] -= 1
            i += 1
        else:
            closer, hashes = ctx[1], ctx[2]
            if text.startswith(closer, i):
                stack.pop()
                blank(i + len(closer) - len(hashes), i + len(closer))
                i += len(closer)
                continue
            if text.startswith("\\" + hashes + "(", i):
                blank(i, i + len(hashes) + 2)
                stack.append(["code", 0])
                i += len(hashes) + 2
                continue
            if text.startswith("\\" + hashes, i) and i + len(hashes) + 1 < n:
                blank(i, i + len(hashes) + 2)
                i += len(hashes) + 2
                continue
            blank(i, i + 1)
            i += 1
    return "".join(out)


class Source:
    def __init__(self, path, text):
        self.path = path
        self.code = mask(text)
        self.close = {}  # opener index -> closer index
        self.open = {}  # closer index -> opener index
        pending = []
        for i, c in enumerate(self.code):
            if c in OPENERS:
                pending.append(i)
            elif c in (")", "}", "]") and pending:
                j = pending.pop()
                self.close[j] = i
                self.open[i] = j
        self.braces = sorted((o, c) for o, c in self.close.items() if self.code[o] == "{")

    def line(self, pos):
        return self.code.count("\n", 0, pos) + 1

    def skip_space(self, i, newlines=True):
        while i < len(self.code) and self.code[i] in (" \t\n\r" if newlines else " \t"):
            i += 1
        return i

    def call(self, name_end):
        """The call whose name ends at `name_end`: (argument span or None, trailing closures as
        (label or None, open, close), the index after it)."""
        code = self.code
        i = self.skip_space(name_end, newlines=False)
        args = None
        if i < len(code) and code[i] == "(" and i in self.close:
            args = (i + 1, self.close[i])
            i = self.close[i] + 1
        closures = []
        j = self.skip_space(i, newlines=False)
        if j < len(code) and code[j] == "{" and j in self.close:
            closures.append((None, j, self.close[j]))
            i = self.close[j] + 1
            while True:
                m = re.compile(r"\s*(\w+)\s*:\s*\{").match(code, i)
                if not m or m.end() - 1 not in self.close:
                    break
                closures.append((m.group(1), m.end() - 1, self.close[m.end() - 1]))
                i = self.close[m.end() - 1] + 1
        return args, closures, i

    def chain(self, i):
        """The modifiers applied from `i` on (`.font(...)`, `.overlay { ... }`, across lines),
        after any labelled trailing closures of the call that ends there: [(name, arguments)]."""
        code = self.code
        found = []
        while True:
            m = re.compile(r"\s*(\w+)\s*:\s*\{").match(code, i)
            if m and m.end() - 1 in self.close:
                i = self.close[m.end() - 1] + 1
                continue
            m = re.compile(r"\s*\.\s*([A-Za-z_]\w*)").match(code, i)
            if not m:
                return found
            name, i = m.group(1), m.end()
            args = ""
            j = self.skip_space(i, newlines=False)
            if j < len(code) and code[j] == "(" and j in self.close:
                args = code[j + 1:self.close[j]]
                i = self.close[j] + 1
            while True:
                j = self.skip_space(i, newlines=False)
                if j < len(code) and code[j] == "{" and j in self.close:
                    i = self.close[j] + 1
                else:
                    break
            found.append((name, args))

    def owner(self, brace):
        """What a `{` opens: a labelled trailing closure (None, "", label), or the first trailing
        closure of a call (name, argument text, None); None otherwise."""
        code = self.code
        before = code[:brace].rstrip()
        m = re.search(r"(\w+)\s*:$", before)
        if m:
            return (None, "", m.group(1))  # a labelled trailing closure (`label: {`, `icon: {`)
        args = ""
        k = len(before) - 1
        if k >= 0 and code[k] == ")" and k in self.open:
            args = code[self.open[k] + 1:k]
            k = self.open[k] - 1
        while k >= 0 and code[k] in " \t":
            k -= 1
        m = re.search(r"([A-Za-z_]\w*)$", code[:k + 1])
        return (m.group(1), args, None) if m else None


def first_argument_is_title(args):
    """`Button("OK")`, `Button(title)`, `Toggle(isOn:)`: whether the first argument is a title
    (unlabelled), which VoiceOver reads."""
    text = args.strip()
    return bool(text) and not re.match(r"^\w+\s*:", text)


def label_closure(src, name, args, closures):
    """The span of a control's label closure, or None when its label is a title or the system's."""
    if args is not None and first_argument_is_title(src.code[args[0]:args[1]]):
        return None
    labelled = [c for c in closures if c[0] == "label"]
    if labelled:
        return labelled[0][1:]
    if not closures or name == "Menu":
        return None
    if name == "Button" and (args is None or "action" not in src.code[args[0]:args[1]]):
        return None  # `Button { action }` without `label:`
    return closures[0][1:]


def is_control_label(src, brace):
    """Whether the `{` at `brace` is a control's label (or a Label's icon): its images are the
    control's business (the `button` rule)."""
    owner = src.owner(brace)
    if not owner:
        return False
    name, args, label = owner
    if label in ("label", "icon"):
        return True
    if label is None and name in CONTROLS and name not in ("Menu",):
        return name != "Button" or "action" in args
    return False


def covered(modifiers):
    for name, args in modifiers:
        if name in COVERING:
            return True
        if name == "accessibilityElement" and (not args.strip() or ".ignore" in args):
            return True
    return False


def lint(path, text):
    src = Source(path, text)
    code = src.code
    findings = []

    for m in re.finditer(r"\.system\s*\(\s*size\s*:", code):
        findings.append((src.line(m.start()), "font", "a fixed font size (.system(size:)) ignores Dynamic Type; use a text"
                         " style (.body, .title2, .system(.title, design:)) or @ScaledMetric"))
    for m in re.finditer(r"\.custom\s*\(", code):
        start = m.end() - 1
        args = code[start + 1:src.close.get(start, start)]
        if re.search(r"\bsize\s*:", args) and not re.search(r"\brelativeTo\s*:", args):
            findings.append((src.line(m.start()), "font", "a custom font with a fixed size ignores Dynamic Type; use"
                             " .custom(_:size:relativeTo:)"))

    for m in re.finditer(r"(?<![\w.])(" + "|".join(sorted(CONTROLS)) + r")\b(?=\s*[({])", code):
        name = m.group(1)
        args, closures, end = src.call(m.end())
        span = label_closure(src, name, args, closures)
        if not span:
            continue
        views = set(re.findall(r"(?<![\w.])([A-Z]\w*)\s*[({]", code[span[0] + 1:span[1]]))
        if "Image" not in views or views - SILENT:
            continue
        if not any(n == "accessibilityLabel" for n, _ in src.chain(end)):
            findings.append((src.line(m.start()), "button", f"{name} whose label is only an image has no"
                             " .accessibilityLabel: VoiceOver would read the symbol's name; label it (\"Refresh balances\")"))

    for m in re.finditer(r"(?<![\w.])Image\s*\(", code):
        args, closures, end = src.call(m.end() - 1)
        arg_text = code[args[0]:args[1]] if args else ""
        if re.match(r"\s*decorative\s*:", arg_text) or re.search(r"\blabel\s*:", arg_text):
            continue
        if covered(src.chain(end)):
            continue
        ok = False
        for o, c in sorted((b for b in src.braces if b[0] < m.start() < b[1]), reverse=True):
            if is_control_label(src, o) or covered(src.chain(c + 1)):
                ok = True
                break
        if not ok:
            findings.append((src.line(m.start()), "image", "an image VoiceOver reads by its symbol name: hide it"
                             " (.accessibilityHidden(true)) when decorative, or give it an .accessibilityLabel"))

    return [f"{path}:{line}: [{rule}] {message}" for line, rule, message in sorted(findings)]


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        for dirpath, _, names in os.walk(os.path.join(root, "App/Sources")):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".swift")]
    findings = []
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            findings += lint(os.path.relpath(path, root), f.read())
    for finding in findings:
        print(finding)
    print(f"lint-accessibility: {len(files)} files, {len(findings)} findings (fixed font sizes, image-only controls"
          " without a label, images neither hidden nor labelled)", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
