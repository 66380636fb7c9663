import Foundation

/// Appends to a committed vector file the cases of a fresh run that it does not hold yet (by
/// `name`), as text: every committed byte stays where it is, so a case once published never
/// changes (ECDSA signatures differ on every run) and `git diff docs/vectors` shows additions.
///
/// Both texts are JSONSerialization's pretty, key-sorted output: each case of a top-level array
/// `key` is a block from a line `    {` to a line `    }` or `    },`, the array closing with
/// `  ]` or `  ],`. Returns the new text and the names appended (none: the text unchanged).
func appendingNewCases(to committed: String, from fresh: String, arrays: [String]) throws -> (text: String, added: [String]) {
    var lines = committed.components(separatedBy: "\n")
    let freshLines = fresh.components(separatedBy: "\n")
    var added: [String] = []
    for key in arrays {
        guard let (start, end) = arrayRange(key, in: lines), let (freshStart, freshEnd) = arrayRange(key, in: freshLines) else {
            continue
        }
        let have = Set(try blocks(lines, start, end).map { try caseName($0) })
        let new = try blocks(freshLines, freshStart, freshEnd).filter { !have.contains(try caseName($0)) }
        guard !new.isEmpty else { continue }
        added += try new.map { try caseName($0) }
        let inserted = new.map { $0.joined(separator: "\n") }.joined(separator: ",\n").components(separatedBy: "\n")
        if end - 1 > start { lines[end - 1] = "    }," }  // the last published case is followed now
        lines.insert(contentsOf: inserted, at: end)
    }
    return (lines.joined(separator: "\n"), added)
}

private func arrayRange(_ key: String, in lines: [String]) -> (Int, Int)? {
    guard let start = lines.firstIndex(of: "  \"\(key)\" : [") else { return nil }
    guard let end = lines[(start + 1)...].firstIndex(where: { $0 == "  ]" || $0 == "  ]," }) else { return nil }
    return (start, end)
}

private func blocks(_ lines: [String], _ start: Int, _ end: Int) -> [[String]] {
    var out: [[String]] = []
    var current: [String] = []
    for line in lines[(start + 1)..<end] {
        if line == "    }" || line == "    }," {
            out.append(current + ["    }"])
            current = []
        } else {
            current.append(line)
        }
    }
    return out
}

private func caseName(_ block: [String]) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(block.joined(separator: "\n").utf8))
    guard let name = (object as? [String: Any])?["name"] as? String else {
        throw CocoaError(.coderReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "a vector case without a name"])
    }
    return name
}
