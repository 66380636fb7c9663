#!/usr/bin/env python3
"""Every required-reason API the app calls has its category declared, and the upload keys exist
(scripts/check-app, "privacy"). App Store Connect refuses a build whose code calls one of Apple's
required-reason APIs (App/README.md, "Ship it") without the API's category and an approved reason
in the app's privacy manifest, and stops every upload at a manual question when Info.plist does
not answer the export-compliance one.

uses         In App/Sources and in the package modules the app links (the products App/project.yml
             lists, and every target of Package.swift they depend on, for iOS): a required-reason
             API (the symbol lists of Apple's "Describing use of required reason API", below) whose
             category App/PrivacyInfo.xcprivacy does not declare. Comments and string text are
             ignored. getattrlist and its relatives are in two categories: either one will do.
manifest     App/PrivacyInfo.xcprivacy exists, is wired into the app target by App/project.yml,
             states NSPrivacyTracking, NSPrivacyTrackingDomains and NSPrivacyCollectedDataTypes,
             and declares each category with at least one reason, all of them Apple's approved
             reasons for that category that an app (not only a third-party SDK) may give.
encryption   App/Info.plist answers ITSAppUsesNonExemptEncryption with a boolean.

Third-party packages (swift-crypto, GRDB, ...) are not scanned here: each ships its own privacy
manifest, and the app's manifest says what a search of their sources found (App/README.md).

Usage: lint-privacy.py ROOT [--manifest FILE] [--info-plist FILE] [FILE...]
  (no FILE: App/Sources and the linked modules' sources under ROOT)
Prints FILE:LINE: [rule] message for each finding; exit status 1 when there is one."""
import os
import plistlib
import re
import sys

USER_DEFAULTS = "NSPrivacyAccessedAPICategoryUserDefaults"
FILE_TIMESTAMP = "NSPrivacyAccessedAPICategoryFileTimestamp"
BOOT_TIME = "NSPrivacyAccessedAPICategorySystemBootTime"
DISK_SPACE = "NSPrivacyAccessedAPICategoryDiskSpace"
KEYBOARDS = "NSPrivacyAccessedAPICategoryActiveKeyboards"

# Apple's approved reasons per category; the second set may be declared by third-party SDKs only.
REASONS = {
    USER_DEFAULTS: ({"CA92.1", "1C8F.1", "AC6B.1"}, {"C56D.1"}),
    FILE_TIMESTAMP: ({"DDA9.1", "C617.1", "3B52.1"}, {"0A2A.1"}),
    BOOT_TIME: ({"35F9.1", "8FFB.1", "3D61.1"}, set()),
    DISK_SPACE: ({"85F4.1", "E174.1", "7D9E.1", "B728.1"}, set()),
    KEYBOARDS: ({"3EC4.1", "54BD.1"}, set()),
}


# A call of a C function, unqualified or through its module (not a method of the same name).
def c_call(names):
    return r"(?:(?<![\w.])|\b(?:Darwin|Glibc|Musl|Foundation)\.)(?:" + names + r")\s*\("


# A member reached without a receiver (`[.modificationDate]`), or through its type.
def key_member(type_name, names):
    return r"(?:(?<![\w)\]}?!])|\b" + type_name + r")\.(?:" + names + r")\b"


# (pattern, categories: any one of them declared covers the use)
APIS = [
    (r"\b(?:NS)?UserDefaults\b|@AppStorage\b", {USER_DEFAULTS}),
    (r"\bNSFile(?:Creation|Modification)Date\b|\bfileModificationDate\b"
     r"|\b(?:contentModificationDate|creationDate)Key\b|\bNSURL(?:ContentModification|Creation)DateKey\b",
     {FILE_TIMESTAMP}),
    (key_member("FileAttributeKey", "creationDate|modificationDate"), {FILE_TIMESTAMP}),
    (c_call("stat|fstat|lstat|fstatat"), {FILE_TIMESTAMP}),
    (c_call("getattrlist|getattrlistbulk|fgetattrlist|getattrlistat"), {FILE_TIMESTAMP, DISK_SPACE}),
    (r"\bsystemUptime\b|\bmach_absolute_time\b", {BOOT_TIME}),
    (r"\b(?:NSURL)?[vV]olume(?:AvailableCapacity(?:ForImportantUsage|ForOpportunisticUsage)?|TotalCapacity)(?:Key)?\b"
     r"|\bNSFileSystem(?:Free)?Size\b", {DISK_SPACE}),
    (key_member("FileAttributeKey", "systemFreeSize|systemSize"), {DISK_SPACE}),
    (c_call("statfs|statvfs|fstatfs|fstatvfs"), {DISK_SPACE}),
    (r"\bactiveInputModes\b", {KEYBOARDS}),
]
APIS = [(re.compile(p), c) for p, c in APIS]
EXTENSIONS = (".swift", ".c", ".h", ".m", ".mm")


def code_only(text, keep_strings=False):
    """text without comments (and without string contents unless keep_strings); newlines stay, so
    line numbers do too."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text[i] == '"':
            quote = '"""' if text.startswith('"""', i) else '"'
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + len(quote))
            body = text[i:j]
            out.append(body if keep_strings else quote + "\n" * body.count("\n") + quote)
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_top(text):
    """text's comma-separated items at bracket depth 0."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def enclosed(text, start):
    """The text inside the bracket that opens at start (strings already emptied of brackets)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    sys.exit("lint-privacy: unbalanced brackets in Package.swift")


def argument(call, label):
    """The value of `label:` among a call's top-level arguments, or None."""
    for item in split_top(call):
        if re.match(label + r"\s*:", item):
            return item.split(":", 1)[1].strip()
    return None


def for_ios(dependency):
    """False when a dependency's condition names platforms and iOS is not one of them."""
    condition = re.search(r"condition:\s*\.when\(\s*platforms:\s*\[([^\]]*)\]", dependency)
    return not condition or ".iOS" in condition.group(1)


def linked_modules(root):
    """{target name: source folder} of the package targets the app links, and the third-party
    packages they use."""
    with open(os.path.join(root, "App/project.yml"), encoding="utf-8") as f:
        spec = f.read()
    m = re.search(r"-\s*package:\s*OfflineWallet\s*\n(?:\s*#.*\n)*\s*products:\s*\n((?:\s*(?:#.*|-\s*\w+\s*)\n)+)", spec)
    if not m:
        sys.exit("lint-privacy: App/project.yml lists no products of the OfflineWallet package")
    products = re.findall(r"^\s*-\s*(\w+)\s*(?:#.*)?$", m.group(1), re.M)
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as f:
        manifest = code_only(f.read(), keep_strings=True)
    # Brackets inside strings are rare in a manifest; blank them so depth counting holds.
    flat = re.sub(r'"[^"\n]*"', lambda s: re.sub(r"[()\[\]{}]", " ", s.group(0)), manifest)
    package_call = enclosed(flat, flat.index("(", flat.index("Package(")))
    library_targets, targets = {}, {}
    for item in split_top(enclosed(argument(package_call, "products"), 0)):
        if item.startswith(".library("):
            call = enclosed(item, item.index("("))
            library_targets[argument(call, "name").strip('"')] = re.findall(r'"(\w+)"', argument(call, "targets"))
    for item in split_top(enclosed(argument(package_call, "targets"), 0)):
        kind = re.match(r"\.(\w+)\(", item)
        if not kind or kind.group(1) not in ("target", "executableTarget", "systemLibrary"):
            continue
        call = enclosed(item, item.index("("))
        name = argument(call, "name").strip('"')
        path = (argument(call, "path") or f'"Sources/{name}"').strip('"')
        deps = argument(call, "dependencies")
        targets[name] = (path, split_top(enclosed(deps, 0)) if deps else [])
    modules, packages = {}, set()
    pending = [t for p in products for t in library_targets.get(p, [])]
    missing = [p for p in products if p not in library_targets]
    if missing:
        sys.exit(f"lint-privacy: App/project.yml links {', '.join(missing)}, which Package.swift does not declare as libraries")
    while pending:
        name = pending.pop()
        if name in modules:
            continue
        path, deps = targets[name]
        modules[name] = path
        for dep in deps:
            if not for_ios(dep):
                continue
            product = re.match(r'\.product\(.*package:\s*"([^"]+)"', dep)
            if product:
                packages.add(product.group(1))
            else:
                pending.append(re.search(r'"(\w+)"', dep).group(1))
    return modules, packages


def read_plist(path):
    with open(path, "rb") as f:
        return plistlib.load(f)


def check_manifest(root, manifest_path, findings):
    """The declared categories; findings for a manifest that is missing, unwired or malformed."""
    where = f"{manifest_path}:1:"
    if not os.path.isfile(manifest_path):
        findings.append(f"{where} [manifest] missing: App Store Connect refuses an app without a privacy manifest; "
                        "create it (App/README.md, \"Ship it\")")
        return set()
    try:
        manifest = read_plist(manifest_path)
    except Exception as error:  # plistlib raises several types for a bad file
        findings.append(f"{where} [manifest] not a property list ({error})")
        return set()
    for key, kind in (("NSPrivacyTracking", bool), ("NSPrivacyTrackingDomains", list), ("NSPrivacyCollectedDataTypes", list)):
        if not isinstance(manifest.get(key), kind):
            findings.append(f"{where} [manifest] {key} is missing or not a{'n array' if kind is list else ' boolean'}")
    declared = set()
    for entry in manifest.get("NSPrivacyAccessedAPITypes", []):
        category = entry.get("NSPrivacyAccessedAPIType")
        reasons = entry.get("NSPrivacyAccessedAPITypeReasons") or []
        if category not in REASONS:
            findings.append(f"{where} [manifest] unknown category '{category}': Apple's are {', '.join(sorted(REASONS))}")
            continue
        declared.add(category)
        app_reasons, sdk_reasons = REASONS[category]
        if not reasons:
            findings.append(f"{where} [manifest] {category} has no reason: give one of {', '.join(sorted(app_reasons))}")
        for reason in reasons:
            if reason in sdk_reasons:
                findings.append(f"{where} [manifest] {category}: {reason} may be declared by third-party SDKs only")
            elif reason not in app_reasons:
                findings.append(f"{where} [manifest] {category}: '{reason}' is not one of Apple's reasons "
                                f"({', '.join(sorted(app_reasons))})")
    if os.path.abspath(manifest_path) == os.path.abspath(os.path.join(root, "App/PrivacyInfo.xcprivacy")):
        with open(os.path.join(root, "App/project.yml"), encoding="utf-8") as f:
            if not re.search(r"^\s*-\s*path:\s*PrivacyInfo\.xcprivacy\s*$", f.read(), re.M):
                findings.append(f"{where} [manifest] App/project.yml does not put it in the app target "
                                "(a `- path: PrivacyInfo.xcprivacy` source with `buildPhase: resources`)")
    return declared


def check_info_plist(path, findings):
    try:
        info = read_plist(path)
    except Exception as error:  # plistlib raises several types for a bad file
        findings.append(f"{path}:1: [encryption] cannot be read ({error})")
        return
    if not isinstance(info.get("ITSAppUsesNonExemptEncryption"), bool):
        findings.append(f"{path}:1: [encryption] ITSAppUsesNonExemptEncryption is missing or not a boolean: "
                        "without it every upload stops at the export-compliance question (App/README.md, \"Ship it\")")


def check_uses(path, declared, manifest_path):
    findings, used = [], set()
    with open(path, encoding="utf-8") as f:
        lines = code_only(f.read()).split("\n")
    for number, line in enumerate(lines, 1):
        for pattern, categories in APIS:
            for m in pattern.finditer(line):
                used |= categories
                if not categories & declared:
                    symbol = m.group(0).strip().rstrip("(").strip()
                    names = " or ".join(sorted(categories))
                    findings.append(f"{path}:{number}: [uses] '{symbol}' is a required-reason API ({names}) "
                                    f"that {manifest_path} does not declare: add the category with the reason "
                                    "that fits (App/README.md, \"Ship it\")")
    return findings, used


def short(categories):
    return ", ".join(sorted(c.removeprefix("NSPrivacyAccessedAPICategory") for c in categories)) or "none"


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    root, files = args[0], []
    manifest_path = os.path.join(root, "App/PrivacyInfo.xcprivacy")
    info_path = os.path.join(root, "App/Info.plist")
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--manifest":
            manifest_path = next(rest, None) or sys.exit("lint-privacy: --manifest needs a file")
        elif arg == "--info-plist":
            info_path = next(rest, None) or sys.exit("lint-privacy: --info-plist needs a file")
        else:
            files.append(arg)
    scope = "the files given"
    if not files:
        modules, packages = linked_modules(root)
        for top in ["App/Sources"] + sorted(modules.values()):
            for base, _, names in os.walk(os.path.join(root, top)):
                files += [os.path.join(base, n) for n in sorted(names) if n.endswith(EXTENSIONS)]
        scope = (f"App/Sources and {len(modules)} linked modules ({', '.join(sorted(modules))}); "
                 f"third-party packages they name, not scanned: {', '.join(sorted(packages))}")
    findings = []
    declared = check_manifest(root, manifest_path, findings)
    check_info_plist(info_path, findings)
    used = set()
    for path in sorted(files):
        found, categories = check_uses(path, declared, manifest_path)
        findings += found
        used |= categories
    print("\n".join(findings)) if findings else None
    print(f"{len(files)} files in {scope}; used: {short(used)}; declared: {short(declared)}; "
          f"{len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


sys.exit(main())
