#!/usr/bin/env python3
"""Reads what scripts/check-app-sdk's compiles printed and says what counts.

Usage: diagnostics.py --root REPO --targets NAMES --jobs JOBS_DIR [--strict-deps] [LOG...]
  JOBS_DIR holds one file per compiler job (App/Checks/SDK/keep-going): a "# job MODULE KIND
  STATUS" line, then what the job printed. LOG: other compiler output (the app's compile).

Each distinct `file:line:col: error|warning: message` counts once, however many jobs printed it.
  project       files of this repository (Sources/, App/): every error and every warning fails;
                so does a compile job of a project module that crashed or failed silently
                (its later diagnostic passes did not run)
  dependencies  files of SwiftPM's checkouts: listed by file and counted. With an SDK older than
                the compiler they are artifacts (a package taking a newer compiler's path against
                the SDK's older standard library); --strict-deps (an SDK as new as the deployment
                target) makes them fail too
  generated     code the build generates from this repository (the OpenAPI generator's types):
                its errors fail; its warnings are the generator's style and are only counted
  backfill      App/Checks/SDKBackfill: errors there are the check's own bug, and fail
Exit status 1 when anything fails."""
import argparse
import collections
import os
import re
import sys

DIAG = re.compile(r"^(.+?):(\d+):(\d+): (error|warning): (.*?)\s*$")
OTHER = re.compile(r"^(?:<unknown>:0: )?(error): (.*?)\s*$")
MACRO = re.compile(r"@__swiftmacro_(\d+)")


def superseded(record):
    """Whether a later job rewrote one of the outputs `record`'s job wrote: the driver grouped
    the module's files into other jobs since (a file added or removed), so what this record said
    is about sources that were compiled again, and counting it would report errors long fixed."""
    with open(record, errors="replace") as f:
        f.readline()
        second = f.readline()
    if not second.startswith("# outputs "):
        return False
    written = os.path.getmtime(record)
    for out in second[len("# outputs "):].split():
        if os.path.exists(out) and os.path.getmtime(out) > written:
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--targets", required=True, help="comma-separated module names of this package and App/")
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--strict-deps", action="store_true")
    ap.add_argument("--built", default="", help="comma-separated project modules the build compiled: each needs a job record")
    ap.add_argument("logs", nargs="*")
    a = ap.parse_args()
    root = os.path.realpath(a.root) + "/"
    own = set(a.targets.split(","))

    job_files = sorted(os.path.join(a.jobs, n) for n in os.listdir(a.jobs)) if os.path.isdir(a.jobs) else []
    job_files = [j for j in job_files if not superseded(j)]
    seen = {}
    unplaced = set()
    for log in job_files + a.logs:
        with open(log, errors="replace") as f:
            for line in f:
                m = DIAG.match(line)
                if m:
                    path, ln, col, kind, msg = m.groups()
                    seen.setdefault((path, int(ln), int(col), kind, msg), None)
                elif line.startswith(("error: ", "<unknown>:0: error: ")):
                    unplaced.add(OTHER.match(line).group(2))

    def place(path):
        m = MACRO.search(path)
        if m:  # a macro expansion buffer: @__swiftmacro_<length><Module>...
            name = path[m.end():m.end() + int(m.group(1))]
            return ("project", name + " (macro expansion)") if name in own else ("dependencies", name)
        real = os.path.realpath(path) if os.path.isabs(path) else os.path.realpath(os.path.join(root, path))
        if not real.startswith(root):
            return "elsewhere", path
        rel = real[len(root):]
        m = re.match(r"\.build[^/]*/[^/]+/checkouts/([^/]+)/", rel)
        if m:  # SwiftPM's copies of the dependencies, in the check's scratch folder
            return "dependencies", m.group(1)
        if rel.startswith("App/Checks/SDKBackfill/"):
            return "backfill", rel
        m = re.match(r"\.build[^/]*/.*/Modules/(\w+)\.swiftmodule", rel)
        if m:  # a built module, named by an error while it is read back
            return ("project", rel) if m.group(1) in own else ("dependencies", m.group(1))
        if rel.startswith(".build"):
            # What the build generates from the repository (WalletAPI's OpenAPI types, resource
            # accessors): its errors are this repository's, its style is the generator's.
            return "generated", rel
        return "project", rel

    groups = collections.defaultdict(list)
    for key in sorted(seen):
        path, ln, col, kind, msg = key
        where, name = place(path)
        shown = name if where in ("project", "backfill") and "macro" not in name else path
        groups[where].append((name, f"{shown}:{ln}:{col}: {kind}: {msg}", kind))

    failed = False
    recorded = set()
    bad_jobs = []
    blocked = {}  # project module -> dependency modules whose broken build its compile tripped on
    for path in job_files:
        with open(path, errors="replace") as f:
            parts = f.readline().split()
            body = f.read()
        if len(parts) != 5 or parts[:2] != ["#", "job"]:
            continue
        module, kind, rc = parts[2], parts[3], int(parts[4])
        if kind == "compile":
            recorded.add(module)
        if module in own and kind == "compile" and rc != 0:
            # A dependency written with errors (keep-going) can crash the compile of a module
            # that imports it, while the compiler reads the broken declarations back.
            broken = set(re.findall(r"deserializ\w* (?:of )?(?:error type|invalid declaration).*? in module '(\w+)'", body))
            broken -= own
            if broken and (rc >= 128 or rc < 0):
                blocked.setdefault(module, set()).update(broken)
            else:
                bad_jobs.append((module, rc))

    project = groups["project"]
    errors = sum(1 for _, _, k in project if k == "error")
    warnings = len(project) - errors
    print(f"project (package modules and App/): {errors} errors, {warnings} warnings")
    for _, text, _ in project:
        print(f"  {text}")
    for module, rc in sorted(set(bad_jobs)):
        crashed = rc >= 128 or rc < 0
        if crashed or not errors:
            print(f"  {module}: a compile job {'crashed' if crashed else 'failed'} (exit {rc}); "
                  "its later diagnostic passes did not run (the build log above says where)")
            failed = True
    failed |= bool(project)
    for module in sorted(set(filter(None, a.built.split(","))) - recorded):
        print(f"  {module}: no record of its compile (the keep-going frontend did not run it): its diagnostics were not seen")
        failed = True
    for module, deps in sorted(blocked.items()):
        print(f"  {module}: not checked to the end: its compile crashed reading {', '.join(sorted(deps))}, "
              f"which did not build against this SDK (see dependencies)")
        failed |= a.strict_deps

    deps = [d for d in groups["dependencies"] if d[2] == "error"]
    by_file = collections.Counter()
    for name, text, _ in deps:
        by_file[text.split(":", 1)[0]] += 1
    by_dep = collections.Counter(name for name, _, _ in deps)
    label = "fail: the SDK is new enough" if a.strict_deps else "artifacts of an SDK older than the compiler"
    print(f"dependencies: {len(deps)} errors in {len(by_file)} files ({label})")
    for dep, n in sorted(by_dep.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {n:5d}  {dep}")
    for path, n in sorted(by_file.items(), key=lambda x: (-x[1], x[0])):
        short = path.split("/checkouts/", 1)[-1]
        print(f"         {n:4d}  {short}")
    failed |= a.strict_deps and bool(deps)

    generated = groups["generated"]
    if generated:
        errors = [t for _, t, k in generated if k == "error"]
        print(f"generated from this repository: {len(errors)} errors, {len(generated) - len(errors)} warnings (the generator's)")
        for t in errors:
            print(f"  {t}")
        failed |= bool(errors)
    for where in ("backfill", "elsewhere"):
        items = [t for _, t, k in groups[where] if k == "error"]
        if items:
            print(f"{where}: {len(items)} errors")
            for t in items:
                print(f"  {t}")
            failed |= where == "backfill"
    reading = {m for m in unplaced if "deserializ" in m}
    if reading:
        print(f"without a file: {len(reading)} errors reading dependencies written with errors (above)")
    for msg in sorted(unplaced - reading):
        print(f"without a file: error: {msg}")
        failed = True
    return 1 if failed else 0


sys.exit(main())
