#!/usr/bin/env python3
"""Views hold no logic: a lint over App/Sources/Views (run by scripts/check-app).

A view may import only SwiftUI, WalletAppModels and Observation (SwiftUI re-exports Foundation,
so `import Foundation` is never needed there). It never names an engine or client type: the
deny list is derived from the public types of the engine modules (classes, actors, protocols,
and types named like a flow, client, session, store, link, listener, dialer or driver), plus
the model properties that hand such an object out (`HomeModel.session`). It never detaches a
task, aggregates with reduce, or does arithmetic on money (a `+ - * / %` next to an amount-,
balance- or total-like name): money is computed and formatted in WalletAppModels.

Usage: lint-views.py REPO_ROOT [FILES...]   (no FILES: every .swift file under App/Sources/Views)
Exit status 1 with one line per finding (file:line: what, and what to do).
"""

import os
import re
import sys

ALLOWED_IMPORTS = {"SwiftUI", "WalletAppModels", "Observation"}
ENGINE_MODULES = [
    "Sources/Wallet/WalletCore",
    "Sources/Wallet/WalletSync",
    "Sources/Wallet/WalletFlows",
    "Sources/Wallet/NearbySession",
    "Sources/Wallet/NearbyGATT",
    "Sources/Wallet/NearbyTCP",
]
# Named in the issue and COMMON.md; kept even if a module renames or moves them.
EXPLICIT_DENY = {
    "Wallet", "AsyncWallet", "WalletSession", "IssuerClient", "NearbyPayFlow", "NearbyReceiveFlow",
    "SessionDriver", "LinkDialer", "LinkListener", "LinkConnection", "KeyStore", "CredentialStore",
}
ENGINE_NAME = re.compile(
    r"(^Async)|(Wallet|Flow|Flows|Client|Session|Store|Link|Listener|Dialer|Driver|Machine|Port|Factory)$"
)
TYPE_DECL = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+)?(class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)",
    re.M,
)
# Names that stand for money in the models (UInt64 minor units); a trailing Text/Label/... is a
# formatted string, which views may show.
MONEY = r"(?:amount|balance|total|spendable|settled|reserved|unsettled|minorUnits|minor|cents|price|fee|riskBudget\w*|available|remaining|value)"
MONEY_IDENT = re.compile(r"^(?:[A-Za-z_]\w*\.)*" + MONEY + r"$", re.I)
FORMATTED = re.compile(r"(Text|Label|String|Description|Title|Line|Percent|Permille|Fraction|Ratio)$")
OPERATOR = re.compile(r"(?<![-+*/%=<>!&|^~.?])([-+*/%])(=?)(?![-+*/%=>])")


def public_types(root):
    """Deny-listed engine type names, from the engine modules' sources."""
    names = set(EXPLICIT_DENY)
    for module in ENGINE_MODULES:
        for dirpath, _, files in os.walk(os.path.join(root, module)):
            for name in files:
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    for kind, type_name in TYPE_DECL.findall(f.read()):
                        if kind in ("class", "protocol", "actor") or ENGINE_NAME.search(type_name):
                            names.add(type_name)
    return names


def engine_members(root, denied):
    """Model properties whose type is an engine type (`HomeModel.session: WalletSession`): a view
    must not reach through them. A name is denied only when every public property of that name in
    the models is engine-typed (`result` is also ScanAssembler's scan result), and a nested value
    type (`IssuerClient.RestoreExchange`) is data, not the engine."""
    kinds = {}
    decl = re.compile(r"public\s+(?:private\(set\)\s+)?(?:let|var)\s+(\w+)\s*:\s*([^={\n]+)")
    models = os.path.join(root, "Sources/Wallet/WalletAppModels")
    for dirpath, _, files in os.walk(models):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                for member, type_text in decl.findall(f.read()):
                    used = set(re.findall(r"\b([A-Za-z_]\w*)\b(?!\s*\.)", type_text)) & denied
                    kinds.setdefault(member, []).append(sorted(used)[0] if used else None)
    return {member: types[0] for member, types in kinds.items() if all(types)}


def code_only(text):
    """The source with comments removed and string literal text blanked (interpolations kept),
    line structure preserved so findings carry the right line numbers."""
    out = []
    i, n = 0, len(text)
    # Stack of contexts: "code" (with paren depth, for interpolations) or a string delimiter.
    stack = [["code", 0]]
    while i < n:
        ctx = stack[-1]
        c = text[i]
        if ctx[0] == "code":
            if text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            if text.startswith("/*", i):
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
                continue
            m = re.match(r'(#*)("""|")', text[i:])
            if m:
                stack.append(["string", m.group(0), m.group(1)])
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
                continue
            if c == "(":
                ctx[1] += 1
            elif c == ")":
                if ctx[1] == 0 and len(stack) > 1:
                    stack.pop()  # end of an interpolation: back in its string
                    out.append(" ")
                    i += 1
                    continue
                ctx[1] -= 1
            out.append(c)
            i += 1
        else:
            _, opener, hashes = ctx
            closer = opener[len(hashes):] + hashes
            if text.startswith(closer, i):
                stack.pop()
                out.append(" " * len(closer))
                i += len(closer)
                continue
            if text.startswith("\\" + hashes + "(", i):
                stack.append(["code", 0])
                out.append(" " * (len(hashes) + 2))
                i += len(hashes) + 2
                continue
            if text.startswith("\\" + hashes, i) and i + len(hashes) + 1 < n:
                out.append("  " if text[i + len(hashes) + 1] != "\n" else " \n")
                i += len(hashes) + 2
                continue
            out.append("\n" if c == "\n" else " ")
            i += 1
    return "".join(out)


def operand_before(line, pos):
    m = re.search(r"([A-Za-z_][\w.]*)\s*$", line[:pos])
    return m.group(1) if m else None


def operand_after(line, pos):
    m = re.match(r"\s*([A-Za-z_][\w.]*)", line[pos:])
    return m.group(1) if m else None


def is_money(name):
    if not name:
        return False
    last = name.split(".")[-1]
    return bool(MONEY_IDENT.match(last)) and not FORMATTED.search(last)


def lint(path, text, denied, members):
    findings = []
    code = code_only(text)
    for number, line in enumerate(code.split("\n"), start=1):
        m = re.match(r"\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([\w.]+)", line)
        if m:
            module = m.group(1).split(".")[0]
            if module not in ALLOWED_IMPORTS:
                findings.append(
                    f"{path}:{number}: imports {module}; views import only {', '.join(sorted(ALLOWED_IMPORTS))}"
                    " (put platform code in App/Sources/Adapters, logic in WalletAppModels)"
                )
            continue
        for name in sorted(set(re.findall(r"\b[A-Z]\w*\b", line)) & denied):
            findings.append(
                f"{path}:{number}: names the engine/client type {name}; a view binds to a WalletAppModels model"
                " instead (add what the screen needs to its model)"
            )
        # Member access on an expression (`model.wallet`), not an implicit member (`case .wallet`).
        for member in re.findall(r"[\w)\]?!]\.([a-z]\w*)\b", line):
            if member in members:
                findings.append(
                    f"{path}:{number}: reaches the {members[member]} through .{member}; call the model's own method instead"
                )
        if re.search(r"\bTask\s*\.\s*detached\b", line):
            findings.append(f"{path}:{number}: Task.detached in a view; the models run work off the main actor")
        if re.search(r"\.\s*reduce\s*\(", line):
            findings.append(f"{path}:{number}: reduce in a view is logic; let the model compute the total")
        for op in OPERATOR.finditer(line):
            if op.group(1) == "-" and re.match(r"\s*\d", line[op.end():]) and not operand_before(line, op.start()):
                continue  # a negative literal
            before, after = operand_before(line, op.start()), operand_after(line, op.end())
            if is_money(before) or is_money(after):
                findings.append(
                    f"{path}:{number}: arithmetic on money ({(before or '')} {op.group(0)} {(after or '')}); amounts are"
                    " computed and formatted by WalletAppModels (AmountEntry, the model's *Text properties)"
                )
    return findings


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        views = os.path.join(root, "App/Sources/Views")
        for dirpath, _, names in os.walk(views):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".swift")]
    denied = public_types(root)
    members = engine_members(root, denied)
    findings = []
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            findings += lint(os.path.relpath(path, root), f.read(), denied, members)
    for finding in findings:
        print(finding)
    print(f"lint-views: {len(files)} view files, {len(denied)} engine types and {len(members)} engine-typed model"
          f" properties denied, {len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
