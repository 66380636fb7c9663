#!/usr/bin/env python3
"""What compiles on Linux and not for Apple platforms, found by reading the code (scripts/check-app,
"platform"). Linux compiles Apple-only adapters (`#if canImport(Security)`, ...) only as far as
parsing them, and builds the package against swift-crypto, whose types differ from CryptoKit's in
one way that matters to Swift 6. `scripts/check-app-sdk` compiles both against Apple's SDK; this
lint keeps the two mistakes that check found from coming back where CI has no SDK.

keys          In every Swift file of the package (Sources/) and the app (App/Sources): a stored
              property (or a global) whose type names a CryptoKit key outside `SendableKey<...>`
              (OfflineNotes). swift-crypto's keys are `Sendable` on Linux; Apple's CryptoKit keys
              are not, so a `Sendable` type storing one compiles here and stops Xcode. A `Mutex`
              is no way out: it is `Sendable`, but a non-Sendable value put into it cannot be used
              afterwards (its closure takes the value `inout sending`), so a key cached in one and
              also returned is an error in Xcode. Locals and parameters are not shared state, and
              an actor or a main-actor type may hold what is not Sendable: neither is flagged.
cast-pattern  A `case` that matches a value with `X as T` where X is not a binding
              (`case (kSecAttrKeyTypeRSA as String, 2048)`): that is a cast pattern, which tests
              the matched value's type, not a comparison with X converted to T. With Security's
              CFString constants it does not compile in Xcode; bind the converted constant to a
              name first and match the name.

Usage: lint-platform.py ROOT [FILE...]   (no FILE: Sources/ and App/Sources under ROOT)
Prints FILE:LINE: [rule] message for each finding; exit status 1 when there is one."""
import os
import re
import sys

KEY = re.compile(
    r"\b(?:(?:SecureEnclave\.)?P(?:256|384|521)\.(?:Signing|KeyAgreement)\.(?:PrivateKey|PublicKey)"
    r"|Curve25519\.(?:Signing|KeyAgreement)\.(?:PrivateKey|PublicKey)|SymmetricKey|SharedSecret)\b")
WRAPPERS = ("SendableKey",)
# A switch case, or a case pattern after if/guard/while/for or a comma of their conditions, up
# to its colon, `=`, `where` or `in`.
CASE = re.compile(r"(?:^\s*|\b(?:if|guard|while|for)\s+|,\s*)case\s+(?P<pattern>(?:(?!\bwhere\b|\bin\b)[^:=])*)")
# `X as T` where X is an expression (a name or a dotted path), not a `let`/`var` binding.
CAST = re.compile(r"(?<![\w.])(?<!let )(?<!var )([A-Za-z_][\w.]*)\s+as\s+([A-Z][\w.]*)")
# A type declaration's head, from the start of its line (`for actor in actors {` is not one).
TYPE_DECL = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|final|nonisolated|"
    r"indirect|distributed)\s+)*(?P<kind>struct|class|actor|enum|extension|protocol)\s+\w[^{]*$")
STORED = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|nonisolated|final|"
    r"lazy|weak|unowned|static|class|private\(set\)|fileprivate\(set\)|internal\(set\)|public\(set\)|package\(set\))\s+)*"
    r"(?:let|var)\s+\w+\s*(?::\s*(?P<type>[^={]+?)\s*)?(?:=\s*(?P<value>.*?))?(?P<brace>\{)?\s*$")


def strip(line, state):
    """The line without comments and string contents; state carries /* */ across lines."""
    out, i = [], 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"], i = False, end + 2
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            state["block"], i = True, i + 2
        elif line[i] == '"':
            end = i + 1
            while end < len(line) and line[end] != '"':
                end += 2 if line[end] == "\\" else 1
            out.append('""')
            i = end + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def unwrapped(type_text):
    """True when a key type in type_text is not inside SendableKey<...>."""
    wrapped_at = []
    stack = []
    for token in re.finditer(r"(\w+)<|>", type_text):
        if token.group(1):
            stack.append(token.group(1))
        elif stack:
            stack.pop()
        wrapped_at.append((token.end(), any(name in WRAPPERS for name in stack)))
    for m in KEY.finditer(type_text):
        inside = [w for end, w in wrapped_at if end <= m.start()]
        if not (inside and inside[-1]):
            return True
    return False


def check(path):
    findings = []
    state = {"block": False}
    # One per open brace: "type" (a type's body), "isolated" (an actor's or a global actor's
    # type body: it may hold what is not Sendable) or "code" (functions, closures, accessors...).
    scopes = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = strip(raw.rstrip("\n"), state)
            m = STORED.match(line)
            # The declared type, or the type an initializer names before its arguments.
            declared = m and (m.group("type") or (m.group("value") or "").split("(", 1)[0])
            # Top-level code of a main.swift runs on the main actor: its variables are not shared.
            top_level_main = not scopes and os.path.basename(path) == "main.swift"
            function_type = declared and "->" in declared
            if m and not top_level_main and not function_type and (not scopes or scopes[-1] == "type") and KEY.search(declared) \
                and unwrapped(declared):
                computed = m.group("brace") and "=" not in line
                if not computed:
                    findings.append(f"{path}:{number}: [keys] stored property of CryptoKit key type '{declared.strip()}': "
                                    "Apple's CryptoKit keys are not Sendable; store it as SendableKey<...> (OfflineNotes)")
            for c in CASE.finditer(line):
                if not scopes or scopes[-1] != "code" or re.match(r"\s*(let|var)\b", c.group("pattern")):
                    continue
                for cast in CAST.finditer(c.group("pattern")):
                    findings.append(f"{path}:{number}: [cast-pattern] '{cast.group(0).strip()}' in a case is a cast pattern, "
                                    f"not a comparison: bind `{cast.group(1)} as {cast.group(2)}` to a name first and match the name")
            # Track what each brace opens: a type body, or code (functions, closures, accessors...).
            for i, ch in enumerate(line):
                if ch == "{":
                    t = TYPE_DECL.match(line[:i])
                    if not t:
                        scopes.append("code")
                    elif t.group("kind") == "actor" or re.search(r"@\w*Actor\b", line[:i]):
                        scopes.append("isolated")
                    else:
                        scopes.append("type")
                elif ch == "}" and scopes:
                    scopes.pop()
    return findings


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        for top in ("Sources", "App/Sources"):
            for base, _, names in os.walk(os.path.join(root, top)):
                files += [os.path.join(base, n) for n in sorted(names) if n.endswith(".swift")]
    findings = [f for path in sorted(files) for f in check(path)]
    print("\n".join(findings)) if findings else None
    print(f"{len(files)} files, {len(findings)} findings (keys, cast-pattern)", file=sys.stderr)
    return 1 if findings else 0


sys.exit(main())
