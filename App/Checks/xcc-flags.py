#!/usr/bin/env python3
"""The C module maps and include paths SwiftPM gave the compiler for some modules, so that a
compile outside SwiftPM (the app's type-check and its real-SDK compile) loads their clang
dependencies too (GRDB's SQLite, swift-crypto's BoringSSL).

Usage: xcc-flags.py BUILD_PLAN MODULE...   (BUILD_PLAN: SwiftPM's debug.yaml)
Prints the flags one argument a line (`-Xcc`, then its value), each flag once."""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    plan, wanted = sys.argv[1], set(sys.argv[2:])
    flags = []
    with open(plan, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith('args: ["'):
                continue
            args = json.loads(line[len("args: "):])
            if "-module-name" not in args or args[args.index("-module-name") + 1] not in wanted:
                continue
            for i, arg in enumerate(args[:-1]):
                if arg != "-Xcc":
                    continue
                value = args[i + 1]
                if value.startswith("-fmodule-map-file="):
                    flag = value
                elif value == "-I" and i + 3 < len(args) and args[i + 2] == "-Xcc":
                    flag = "-I" + args[i + 3]
                elif value.startswith("-I") and value != "-I":
                    flag = value
                else:
                    continue
                if flag not in flags:
                    flags.append(flag)
    for flag in flags:
        print("-Xcc")
        print(flag)


main()
