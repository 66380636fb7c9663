#!/usr/bin/env python3
"""API newer than the app's deployment target is used only behind `#available` (scripts/check-app,
"availability").

Swift checks availability only for Apple targets, so the Linux type-check against the SwiftUI
stand-in cannot. The stand-in therefore declares API newer than the deployment target (iOS, from
App/project.yml) with Apple's `@available(iOS N, ...)`, and this lint reads those declarations and
every use of their names in App/Sources: a use must sit inside `if #available(iOS M, *)` /
`guard #available(iOS M, *)` (with M >= N) or in a declaration marked `@available(iOS M, ...)`.
A name-level check: an overload of the same name that is older is not told apart (keep newer
API's names distinct in the stand-in, as Apple's usually are). Against Apple's SDK,
scripts/check-app-sdk has the compiler's own availability checking.

Usage: lint-availability.py ROOT [FILE...]   (no FILE: App/Sources under ROOT)
Prints FILE:LINE: message per finding; exit status 1 when there is one."""
import os
import re
import sys

AVAILABLE = re.compile(r"@available\([^)]*?\biOS\s+(\d+(?:\.\d+)?)")
IF_AVAILABLE = re.compile(r"#available\([^)]*?\biOS\s+(\d+(?:\.\d+)?)")
DECL_NAME = re.compile(r"\b(?:func|var|let|case|struct|class|enum|protocol|typealias)\s+`?(\w+)`?")


def version(text):
    return tuple(int(p) for p in text.split("."))


def deployment_target(root):
    with open(os.path.join(root, "App/project.yml"), encoding="utf-8") as f:
        m = re.search(r"deploymentTarget:\s*\n(?:\s*#.*\n)*\s*iOS:\s*\"?([\d.]+)", f.read())
    if not m:
        sys.exit("lint-availability: no iOS deploymentTarget in App/project.yml")
    return version(m.group(1))


def newer_api(root, target):
    """Names the stand-in declares with an iOS availability above the deployment target."""
    names = {}
    folder = os.path.join(root, "App/Checks/SwiftUIStandIn")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".swift"):
            continue
        pending = None
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            for line in f:
                code = line.split("//", 1)[0]
                a = AVAILABLE.search(code)
                if a:
                    pending = version(a.group(1))
                d = DECL_NAME.search(code.replace(a.group(0), "") if a else code)
                if d and pending:
                    if pending > target:
                        names[d.group(1)] = pending
                    pending = None
    return names


def strip(line):
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def check(path, names):
    findings = []
    scopes = []  # the iOS version each open brace guarantees (None: nothing more than its parent)
    pending = None  # the version an `if #available` / `@available` gives the next brace it opens
    declarations_since = 0  # declarations read since that attribute: a second one ends it unused
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = strip(raw)
            depth = len(scopes)
            guaranteed = max([v for v in scopes if v] or [()])
            guard = re.search(r"\bguard\s+#available", line)
            a = AVAILABLE.search(line) or (None if guard else IF_AVAILABLE.search(line))
            if a:
                pending, declarations_since = version(a.group(1)), 0
            if pending and DECL_NAME.search(line):
                declarations_since += 1
                if declarations_since > 1 and not a:
                    pending = None  # the attribute belonged to a declaration without a body
            here = max(guaranteed, pending or ())
            for name, needed in names.items():
                for use in re.finditer(r"(?<![\w])\.?" + name + r"\b", line):
                    if DECL_NAME.search(line) and DECL_NAME.search(line).group(1) == name:
                        continue
                    if here < needed:
                        findings.append(f"{path}:{number}: '{name}' needs iOS {'.'.join(map(str, needed))}, above the "
                                        f"deployment target: wrap it in `if #available(iOS {'.'.join(map(str, needed))}, *)`")
            for ch in line:
                if ch == "{":
                    scopes.append(pending)
                    pending = None
                elif ch == "}" and scopes:
                    scopes.pop()
            if guard and depth > 0:
                # `guard #available(...) else { ... }`: the rest of the scope the guard is in has it,
                # not its else block (which may still be open on the lines after this one).
                scopes[depth - 1] = max(scopes[depth - 1] or (), version(IF_AVAILABLE.search(line).group(1)))
    return findings


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    target = deployment_target(root)
    names = newer_api(root, target)
    files = sys.argv[2:]
    if not files:
        for base, _, entries in os.walk(os.path.join(root, "App/Sources")):
            files += [os.path.join(base, n) for n in sorted(entries) if n.endswith(".swift")]
    findings = [f for path in sorted(files) for f in check(path, names)]
    if findings:
        print("\n".join(findings))
    shown = ", ".join(sorted(names)) or "none"
    print(f"{len(files)} files, {len(names)} stand-in API above iOS {'.'.join(map(str, target))} ({shown}), "
          f"{len(findings)} uses outside #available", file=sys.stderr)
    return 1 if findings else 0


sys.exit(main())
