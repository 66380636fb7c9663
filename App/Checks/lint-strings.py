#!/usr/bin/env python3
"""Every text the app shows exists, translated, in every language of its String Catalog
(scripts/check-app, "strings"); the same tool keeps the catalog in step with the sources.

Where texts come from:
  models   Sources/Wallet/WalletAppModels: `localized("key", "English format", args...)` and
           `localized("key", count: n, one: "…%lld…", other: "…%lld…")` (Localization/Localizer.swift).
           Key and English are literals, so this scan sees all of them.
  views    App/Sources: the string literal a SwiftUI initializer or modifier localizes (Text("…"),
           Button("…"), Label("…", …), .navigationTitle("…"), .accessibilityLabel("…"), …); the
           literal is its own key, as Xcode extracts it.

Rules (each finding: FILE:LINE: [rule] message):
  missing       a key the sources use is not in the catalog, or a required language (en, fr, de)
                lacks it or has it in a state other than "translated"
  english       the catalog's English differs from the English default the model code carries
  placeholders  a translation's placeholders differ from the English ones (%@, %1$@…, %lld)
  plural        a key used with a count lacks plural variants "one" and "other" in a language,
                or a key used without one has plural variants
  stale         a catalog key no source uses (a dead translation)
  conflict      one key used with two different English texts
  project       the catalog is not a resource of the app target in App/project.yml (Xcode would
                not compile it into the bundle: every text would show in English)
  fragment      a translated text built from pieces: a `localized(…)` result joined with `+` or
                written into a string interpolation, or a view literal with an interpolation
                (the key would be a sentence with holes its translator cannot see)
  literal       a string literal in the models with words in it outside a `localized` call
                (an English text that escapes translation); a line that must keep one says why
                with a `// not shown:` comment (identifiers, storage keys, log lines)

Usage: lint-strings.py ROOT [--catalog FILE] [--models DIR] [--views DIR] [--project FILE]
       lint-strings.py ROOT --update      add missing keys (English filled in) and drop stale ones
       lint-strings.py ROOT --export FILE write what each language lacks, as JSON, for translation
       lint-strings.py ROOT --import FILE merge translations {key: {lang: text | {one, other}}}
Exit status 1 when there is a finding (check mode)."""
import json
import os
import re
import sys

LANGUAGES = ("en", "fr", "de")
VIEW_CALLS = (
    "Text|Button|Label|Toggle|TextField|SecureField|Section|Picker|LabeledContent|ProgressView|Link|"
    "ContentUnavailableView|navigationTitle|accessibilityLabel|accessibilityHint|accessibilityValue|"
    "confirmationDialog|alert|help|"
    # The app's own components whose first argument is a localized key (LocalizedStringKey).
    "FormTextField|CurrencyField|FieldTitle|BusyLabel|messageAlert|SummaryRow|row"
)
STRING = r'"((?:[^"\\\n]|\\.)*)"'
MODEL_TEXT = re.compile(r'\blocalized\(\s*' + STRING + r'\s*,\s*' + STRING, re.S)
MODEL_PLURAL = re.compile(
    r'\blocalized\(\s*' + STRING + r'\s*,\s*count:[^,]+,\s*one:\s*' + STRING + r'\s*,\s*other:\s*' + STRING, re.S
)
VIEW_TEXT = re.compile(r'(?<![\w.])\.?(?:' + VIEW_CALLS + r')\(\s*' + STRING)
# Arguments of the app's components that take a localized key by label.
LABELED_KEY = re.compile(r'\b(?:title|caption|prompt):\s*' + STRING)
PLACEHOLDER = re.compile(r'%(?:(\d+)\$)?(@|lld|ld|d)|%%')
WORDS = re.compile(r'[A-Za-z]{2,}[^"]*\s[^"]*[A-Za-z]{2,}|^[A-Z][a-z]+[.!?…]?$')


def unescape(s):
    """A Swift string literal's text (the escapes these sources use)."""
    s = re.sub(r'\\u\{([0-9A-Fa-f]+)\}', lambda m: chr(int(m.group(1), 16)), s)
    return s.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")


def swift_files(top):
    for base, _, names in os.walk(top):
        for n in sorted(names):
            if n.endswith(".swift"):
                yield os.path.join(base, n)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def code_only(text):
    """`text` with comments blanked (same length and lines), string literals kept."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        elif text[i] == '"':
            m = re.compile(STRING).match(text, i)
            j = m.end() if m else i + 1
            out.append(text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def placeholders(s):
    """The placeholders of `s` as a sorted list of distinct (position, kind), %% ignored (a
    translation may name one value twice, or once where English names it twice)."""
    found = []
    next_position = 1
    for m in PLACEHOLDER.finditer(s):
        if m.group(0) == "%%":
            continue
        position = int(m.group(1)) if m.group(1) else next_position
        next_position = position + 1
        found.append((position, "@" if m.group(2) == "@" else "d"))
    return sorted(set(found))


def scan(models, views):
    """Uses: key -> {"english": str | None, "plural": (one, other) | None, "where": (file, line)};
    findings: [(file, line, rule, message)]."""
    uses = {}
    findings = []
    for path in swift_files(models):
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        text = code_only(raw)
        for m in MODEL_PLURAL.finditer(text):
            key = unescape(m.group(1))
            uses[key] = {"english": None, "plural": (unescape(m.group(2)), unescape(m.group(3))),
                         "where": (path, line_of(text, m.start()))}
        plural_spans = [m.span() for m in MODEL_PLURAL.finditer(text)]
        for m in MODEL_TEXT.finditer(text):
            if any(a <= m.start() < b for a, b in plural_spans):
                continue
            key = unescape(m.group(1))
            english = unescape(m.group(2))
            where = (path, line_of(text, m.start()))
            if key in uses and uses[key]["english"] != english:
                findings.append((*where, "conflict", f'"{key}" is used with another English text at {uses[key]["where"][0]}:{uses[key]["where"][1]}'))
            uses[key] = {"english": english, "plural": None, "where": where}
        # A localized text joined to another piece, or written into a literal.
        for m in re.finditer(r'\+\s*localized\(|\\\(\s*localized\(', text):
            findings.append((path, line_of(text, m.start()), "fragment",
                             "a localized text is joined to another piece: make the whole sentence one key with placeholders"))
        for m in re.finditer(r'\blocalized\(', text):
            depth, j = 0, m.end() - 1
            while j < len(text):
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif text[j] == '"':
                    s = re.compile(STRING).match(text, j)
                    j = s.end() - 1 if s else j
                j += 1
            if re.match(r'\s*\+', text[j + 1:j + 40]):
                findings.append((path, line_of(text, m.start()), "fragment",
                                 "a localized text is joined to another piece: make the whole sentence one key with placeholders"))
        # Literals with words outside a localized call.
        spans = [m.span() for m in MODEL_TEXT.finditer(text)] + plural_spans
        raw_lines = raw.split("\n")
        for m in re.compile(STRING).finditer(text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            line = line_of(text, m.start())
            if "// not shown:" in raw_lines[line - 1]:
                continue
            body = re.sub(r'\\\([^)]*\)', " ", m.group(1))
            if WORDS.search(body):
                findings.append((path, line, "literal",
                                 f'"{m.group(1)[:60]}" looks like a shown text: make it localized("key", "…"), '
                                 'or say why not with // not shown:'))
    for path in swift_files(views):
        with open(path, encoding="utf-8") as f:
            text = code_only(f.read())
        for m in list(VIEW_TEXT.finditer(text)) + list(LABELED_KEY.finditer(text)):
            literal = m.group(1)
            line = line_of(text, m.start())
            if "\\(" in literal:
                findings.append((path, line, "fragment",
                                 f'"{literal[:60]}": a view literal with an interpolation; show a whole text from the '
                                 "model (Text(model.x)) or a verbatim value"))
                continue
            key = unescape(literal)
            if not re.search(r'[A-Za-z]', key):
                continue
            uses.setdefault(key, {"english": key, "plural": None, "where": (path, line)})
    return uses, findings


def unit(entry, language):
    return entry.get("localizations", {}).get(language, {})


def check(uses, catalog, catalog_path):
    findings = []
    strings = catalog.get("strings", {})
    languages = sorted(set(LANGUAGES) | {l for e in strings.values() for l in e.get("localizations", {})})
    for key, use in sorted(uses.items()):
        path, line = use["where"]
        entry = strings.get(key)
        if entry is None:
            findings.append((path, line, "missing", f'"{key}" is not in {catalog_path}'))
            continue
        english = use["english"] if use["plural"] is None else use["plural"][1]
        for language in languages:
            loc = unit(entry, language)
            if use["plural"] is not None:
                variants = loc.get("variations", {}).get("plural", {})
                if not loc:
                    findings.append((path, line, "missing", f'"{key}" has no {language} text'))
                    continue
                if "one" not in variants or "other" not in variants:
                    findings.append((path, line, "plural", f'"{key}" is counted: {language} needs variants "one" and "other"'))
                    continue
                for form, variant in sorted(variants.items()):
                    su = variant.get("stringUnit", {})
                    if su.get("state") != "translated":
                        findings.append((path, line, "missing", f'"{key}" {language}/{form} is not translated'))
                    elif placeholders(su.get("value", "")) != placeholders(english) and not (
                            form in ("one", "zero") and not placeholders(su.get("value", ""))):
                        findings.append((path, line, "placeholders",
                                         f'"{key}" {language}/{form} "{su.get("value")}" has other placeholders than "{english}"'))
                if language == "en" and (variants["one"]["stringUnit"].get("value"),
                                         variants["other"]["stringUnit"].get("value")) != use["plural"]:
                    findings.append((path, line, "english", f'"{key}": the catalog\'s English differs from the code\'s'))
                continue
            if "variations" in loc:
                findings.append((path, line, "plural", f'"{key}" is not counted but has {language} variants'))
                continue
            su = loc.get("stringUnit")
            if su is None:
                findings.append((path, line, "missing", f'"{key}" has no {language} text'))
            elif su.get("state") != "translated":
                findings.append((path, line, "missing", f'"{key}" {language} is "{su.get("state")}", not translated'))
            elif placeholders(su.get("value", "")) != placeholders(english):
                findings.append((path, line, "placeholders",
                                 f'"{key}" {language} "{su.get("value")}" has other placeholders than "{english}"'))
            elif language == "en" and su.get("value") != english:
                findings.append((path, line, "english",
                                 f'"{key}": the catalog says "{su.get("value")}", the code "{english}"'))
    for key in sorted(set(strings) - set(uses)):
        findings.append((catalog_path, 1, "stale", f'"{key}" is in the catalog but no source uses it'))
    return findings


def wired(project, name):
    """The catalog `name` listed under the app target's sources with the resources build phase."""
    try:
        with open(project, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return [(project, 1, "project", "no such file")]
    for i, line in enumerate(lines):
        if re.match(r'\s*- path:\s*' + re.escape(name) + r'\s*$', line):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.match(r'\s*buildPhase:\s*resources\s*$', following):
                return []
    return [(project, 1, "project", f"{name} is not a resource of the app target (- path: {name} / buildPhase: resources)")]


def english_entry(use):
    if use["plural"] is None:
        return {"stringUnit": {"state": "translated", "value": use["english"]}}
    one, other = use["plural"]
    return {"variations": {"plural": {
        "one": {"stringUnit": {"state": "translated", "value": one}},
        "other": {"stringUnit": {"state": "translated", "value": other}}}}}


def save(catalog, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(catalog, indent=2, sort_keys=True, ensure_ascii=False, separators=(",", " : ")))
        f.write("\n")


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    root = args.pop(0)
    opts = {"--catalog": os.path.join(root, "App/Localizable.xcstrings"),
            "--models": os.path.join(root, "Sources/Wallet/WalletAppModels"),
            "--views": os.path.join(root, "App/Sources"),
            "--project": os.path.join(root, "App/project.yml")}
    mode = None
    while args:
        a = args.pop(0)
        if a in opts and args:
            opts[a] = args.pop(0)
        elif a == "--update":
            mode = ("update", None)
        elif a in ("--export", "--import") and args:
            mode = (a[2:], args.pop(0))
        else:
            print(f"lint-strings.py: unknown argument '{a}'", file=sys.stderr)
            return 2
    uses, findings = scan(opts["--models"], opts["--views"])
    try:
        with open(opts["--catalog"], encoding="utf-8") as f:
            catalog = json.load(f)
    except FileNotFoundError:
        catalog = {"sourceLanguage": "en", "strings": {}, "version": "1.0"}
    except json.JSONDecodeError as e:
        print(f"{opts['--catalog']}:{e.lineno}: [catalog] not JSON: {e.msg}")
        return 1
    strings = catalog.setdefault("strings", {})
    if mode and mode[0] == "update":
        for key, use in uses.items():
            entry = strings.setdefault(key, {})
            entry.setdefault("extractionState", "manual")
            locs = entry.setdefault("localizations", {})
            locs["en"] = english_entry(use)
        for key in set(strings) - set(uses):
            del strings[key]
        save(catalog, opts["--catalog"])
        return 0
    if mode and mode[0] == "export":
        todo = {}
        for key, use in sorted(uses.items()):
            lacking = [l for l in LANGUAGES if l != "en" and not unit(strings.get(key, {}), l)]
            if lacking:
                todo[key] = {"english": use["english"] if use["plural"] is None else
                             {"one": use["plural"][0], "other": use["plural"][1]}, "languages": lacking}
        with open(mode[1], "w", encoding="utf-8") as f:
            json.dump(todo, f, indent=1, ensure_ascii=False)
        print(f"{len(todo)} keys to translate written to {mode[1]}")
        return 0
    if mode and mode[0] == "import":
        with open(mode[1], encoding="utf-8") as f:
            done = json.load(f)
        for key, by_language in done.items():
            if key not in strings:
                print(f"skipped '{key}': not in the catalog", file=sys.stderr)
                continue
            for language, text in by_language.items():
                locs = strings[key].setdefault("localizations", {})
                if isinstance(text, dict):
                    locs[language] = {"variations": {"plural": {
                        form: {"stringUnit": {"state": "translated", "value": v}} for form, v in text.items()}}}
                else:
                    locs[language] = {"stringUnit": {"state": "translated", "value": text}}
        save(catalog, opts["--catalog"])
        return 0
    findings += check(uses, catalog, opts["--catalog"])
    findings += wired(opts["--project"], os.path.basename(opts["--catalog"]))
    for path, line, rule, message in sorted(set(findings)):
        print(f"{path}:{line}: [{rule}] {message}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
