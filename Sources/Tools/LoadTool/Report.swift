// wallet-load --report: every row of docs/server.md's "Load test" table in one run.
// Per database: the durable one-row insert ceiling (before and after its rows: their
// spread is the run's noise), redemptions over HTTP on an empty database, then after growing
// the spent set to each --prefill size on the same database; on PostgreSQL, then 1/2/4
// wallet-server processes. Every rate is shown as a ratio to its database's ceiling, and
// every row is checked (all 200 credited, books balanced, spent set as expected).
import ArgumentParser
import Foundation
import IssuerCore
import SQLStore

#if canImport(Glibc)
import Glibc
#endif

/// One row of the report.
struct ReportRow: Sendable {
    let database: String
    let label: String
    /// Notes the spent set held before the measured run (prefilled, the template, earlier runs).
    let notesBefore: Int
    let figures: RunFigures
    let size: DatabaseSize?
    let prefillSeconds: Double?
    let prefillNotes: Int?
    /// Notes this row's prefill added (from the previous size), in `prefillSeconds`.
    var prefillAdded: Int? = nil
    let checks: [(name: String, problem: String?)]
    let command: String
    var ok: Bool { checks.allSatisfy { $0.problem == nil } }
}

struct LoadReport {
    let options: WalletLoad

    static func sizes(_ text: String, _ flag: String) throws -> [Int] {
        guard !["", "0", "none"].contains(text) else { return [] }
        let sizes = text.split(separator: ",").map {
            Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: ""))
        }
        guard sizes.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw ValidationError("\(flag) takes positive numbers separated by commas, e.g. 100000,1000000; got \(text)")
        }
        return sizes.compactMap { $0 }
    }

    func run() async throws {
        let json = options.json
        let log: @Sendable (String) -> Void = { s in FileHandle.standardError.write(Data((s + "\n").utf8)) }
        let prefill = try Self.sizes(options.prefill, "--prefill")
        guard prefill == prefill.sorted(), Set(prefill).count == prefill.count else {
            throw ValidationError("--prefill sizes grow the same database: give them in increasing order")
        }
        let processes = try Self.sizes(options.processes, "--processes")
        let databases = options.databases.split(separator: ",").map(String.init)
        guard !databases.isEmpty, databases.allSatisfy({ ["sqlite", "postgres"].contains($0) }) else {
            throw ValidationError("--databases: sqlite, postgres or both")
        }
        guard options.clients >= 1, options.redemptions >= options.clients else {
            throw ValidationError("--redemptions must be at least --clients")
        }
        let commit = ProcessInfo.processInfo.environment["OW_LOAD_COMMIT"] ?? "unknown"
        log(
            "report (commit \(commit)): \(databases.joined(separator: ", ")); \(options.clients) clients, \(options.redemptions) redemptions a row; prefill \(prefill.isEmpty ? "none" : prefill.map(String.init).joined(separator: " → ")); processes \(processes.isEmpty ? "none" : processes.map(String.init).joined(separator: ", "))"
        )

        var rows: [ReportRow] = []
        var ceilings: [String: [Double]] = [:]
        var ceilingCPU: [String: [Double]] = [:]
        for database in databases {
            // Not before the first: nothing of this run is left to settle then.
            if database != databases.first { await Self.settle(log: log) }
            let ceilingDB = try await LoadDatabase.open(
                database, label: "ceiling", postgresURL: options.postgresURL, maxConnections: 40)
            func ceiling() async throws {
                let measured = try await LoadSetup.ceiling(ceilingDB.db, clients: options.clients, inserts: options.redemptions)
                let c = measured.rate
                ceilings[database, default: []].append(c)
                ceilingCPU[database, default: []].append(measured.cpu.perOperation(measured.inserts).both)
                log(
                    String(
                        format: "%@: ceiling %.0f durable one-row inserts/s, CPU %.0f µs per insert", database, c,
                        measured.cpu.perOperation(measured.inserts).both))
            }
            try await ceiling()
            rows += try await growing(database, prefill: prefill, ceiling: ceilings[database]?.first ?? 0, log: log)
            if database == "postgres" && !processes.isEmpty {
                guard let url = options.postgresURL ?? ProcessInfo.processInfo.environment["OW_LOAD_POSTGRES_URL"] else {
                    throw ValidationError("--postgres-url is required")
                }
                let several = SeveralProcesses(
                    postgresURL: url, serverBinary: options.serverBinaryPath, clients: options.clients,
                    redemptions: options.redemptions,
                    duplicates: min(32, max(2, options.redemptions / 50)), log: log)
                for k in processes {
                    let run = try await several.run(processes: k)
                    let row = ReportRow(
                        database: database, label: "\(k) wallet-server process\(k == 1 ? "" : "es")", notesBefore: 0,
                        figures: run.figures, size: nil,
                        prefillSeconds: nil, prefillNotes: nil, checks: run.checks,
                        command: "scripts/load --report --databases postgres --prefill none --processes \(k)")
                    rows.append(row)
                    log(Self.line(row, ceiling: ceilings[database]?.first ?? 1))
                }
            }
            try await ceiling()
            await Self.drop(ceilingDB)
        }
        let mean = ceilings.mapValues { $0.reduce(0, +) / Double($0.count) }
        let ok = rows.allSatisfy(\.ok)
        if json {
            print(
                String(
                    decoding: try JSONSerialization.data(
                        withJSONObject: Self.json(
                            rows, ceilings: ceilings, ceilingCPU: ceilingCPU, commit: commit, options: options, ok: ok),
                        options: [.sortedKeys]), as: UTF8.self))
        } else {
            print(Self.table(rows, ceilings: ceilings, ceilingCPU: ceilingCPU, mean: mean, commit: commit, options: options))
        }
        for row in rows where !row.ok {
            for check in row.checks {
                if let problem = check.problem { log("FAILED: \(row.database) \(row.label): \(check.name): \(problem)") }
            }
        }
        if !ok { throw ExitCode.failure }
    }

    /// An issuer in this process on one fresh database: measured empty, then after each prefill.
    func growing(
        _ database: String, prefill sizes: [Int], ceiling: Double, log: @escaping @Sendable (String) -> Void
    ) async throws -> [ReportRow] {
        let opened = try await LoadDatabase.open(database, label: "issuer", postgresURL: options.postgresURL, maxConnections: 40)
        let db = opened.db
        if let mb = options.sqliteCacheMb, db.dialect == .sqlite {
            // A per-connection setting; SQLiteStore has one connection, the issuer's.
            try await db.transaction { try await $0.execute("PRAGMA cache_size = -\(mb * 1_024)") }
            log("sqlite: page cache \(mb) MB")
        }
        let local = try await LocalIssuer.start(database: db, parallelism: options.parallelism)
        defer { local.stop() }
        var rows: [ReportRow] = []
        var measured = 0
        var prefill: Prefill?
        for target in [0] + sizes {
            var seconds: Double?
            let previous = prefill?.notes ?? 0
            if target > 0 {
                if prefill == nil { prefill = Prefill(db: db, template: try await PrefillTemplate.make(local.issuer, db)) }
                log("\(database): prefilling the spent set to \(target) notes…")
                seconds = try await prefill?.grow(to: target, log: log)
                await Self.settle(log: log)
            }
            let before = (prefill?.notes ?? 0) + (prefill == nil ? 0 : 1) + measured
            let size = try await DatabaseSize.measure(db, sqlitePath: database == "sqlite" ? opened.location : nil)
            log("\(database): setup of \(options.redemptions) chains…")
            let work = try await LoadSetup.makeWork(
                local.issuer, tokens: local.tokens, redemptions: options.redemptions, clients: options.clients, tag: "n\(before)",
                log: log)
            let figures = try await LoadSetup.measure(work, ports: [local.port])
            measured += work.total
            let ledger = try await local.issuer.checkLedger()
            let expectedRows = 2 * ((prefill?.notes ?? 0) + (prefill == nil ? 0 : 1) + measured)
            let spent = try await db.transaction {
                try await $0.queryOne("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM spent_state")?.int("n") ?? -1
            }
            var row = ReportRow(
                database: database, label: "over HTTP, 1 process", notesBefore: before, figures: figures, size: size,
                prefillSeconds: seconds,
                prefillNotes: seconds == nil ? nil : prefill?.notes,
                checks: [
                    (
                        "every request answered 200 credited (none hit a prefilled row)",
                        figures.failures == 0 ? nil : "\(figures.failures) of \(figures.redemptions) were not"
                    ),
                    ("books balance (Issuer.checkLedger)", ledger.isEmpty ? nil : ledger.prefix(3).joined(separator: "; ")),
                    (
                        "two spent_state rows per note, no more",
                        spent == expectedRows ? nil : "\(spent) rows, expected \(expectedRows)"
                    ),
                ],
                command:
                    "scripts/load --report --databases \(database) --prefill \(target > 0 ? String(target) : "none") --processes none"
            )
            if seconds != nil { row.prefillAdded = (prefill?.notes ?? 0) - previous }
            rows.append(row)
            log(Self.line(row, ceiling: ceiling))
        }
        local.stop()
        await Self.drop((db, opened.location))
        return rows
    }

    /// Frees a database's disk (a 10^7 spent set is gigabytes): the SQLite directory, or the schema.
    static func drop(_ opened: (db: any SQLDatabase, location: String)) async {
        if opened.db.dialect == .postgres,
            let schema = opened.location.split(separator: "search_path=").last?.split(separator: "&").first
        {
            try? await opened.db.transaction { try await $0.execute("DROP SCHEMA \(schema) CASCADE") }
        }
        await opened.db.close()
        if opened.db.dialect == .sqlite {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: opened.location).deletingLastPathComponent())
        }
    }

    /// Lets the machine finish what the last step left it (a prefill's dirty pages, the removal
    /// of a 20 GB SQLite database) before the next measurement. Once, the PostgreSQL ceiling and
    /// empty row measured right after SQLite's 10^7 database was removed ran at 0.6 and 0.3 of
    /// their usual rates, and the rows after them did not. Writes out dirty pages (sync), waits until
    /// less than 16 MB is dirty or under writeback (a minute at most), then 5 s more.
    static func settle(log: @Sendable (String) -> Void) async {
        let clock = ContinuousClock()
        let start = clock.now
        #if canImport(Glibc)
        Glibc.sync()
        #endif
        while clock.now - start < .seconds(60), let kb = unwrittenKB(), kb > 16 * 1_024 {
            try? await Task.sleep(for: .seconds(1))
        }
        try? await Task.sleep(for: .seconds(5))
        let waited = (clock.now - start).components
        log(String(format: "  (settled for %.1f s before measuring)", Double(waited.seconds) + Double(waited.attoseconds) / 1e18))
    }

    /// Dirty and under-writeback page cache, in kB (Linux's /proc/meminfo); nil elsewhere.
    static func unwrittenKB() -> Int? {
        guard let info = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        var total = 0
        for line in info.split(separator: "\n") where line.hasPrefix("Dirty:") || line.hasPrefix("Writeback:") {
            total += line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        }
        return total
    }

    static func mb(_ bytes: Int64) -> String { String(format: "%.0f MB", Double(bytes) / 1_000_000) }

    static func line(_ row: ReportRow, ceiling: Double) -> String {
        var text = String(
            format: "%@ %@, %d notes before: %.0f redemptions/s, p50 %.1f ms, p99 %.1f ms", row.database, row.label,
            row.notesBefore,
            row.figures.rate, row.figures.latency.p50, row.figures.latency.p99)
        if ceiling > 0 { text += String(format: " (%.2f of the ceiling)", row.figures.rate / ceiling) }
        if let size = row.size { text += ", database \(mb(size.bytes))" }
        if row.figures.perServer.count > 1 {
            text +=
                "; per process "
                + row.figures.perServer.map { String(format: "%.0f/s p99 %.1f ms", $0.rate, $0.latency.p99) }.joined(
                    separator: ", ")
        }
        return text + (row.ok ? "; checks ok" : "; CHECKS FAILED")
    }

    static func table(
        _ rows: [ReportRow], ceilings: [String: [Double]], ceilingCPU: [String: [Double]], mean: [String: Double], commit: String,
        options: WalletLoad
    ) -> String {
        var out = [
            "wallet-load --report, commit \(commit): \(options.clients) clients, \(options.redemptions) durable redemptions a row, over HTTP on loopback"
        ]
        for (database, values) in ceilings.sorted(by: { $0.key > $1.key }) {
            let spread = ((values.max() ?? 0) - (values.min() ?? 0)) / (mean[database] ?? 1)
            out.append(
                String(
                    format:
                        "%@ one-row insert ceiling: %@/s (before and after its rows; mean %.0f/s, spread %.0f%%); CPU per insert %@ µs",
                    database,
                    values.map { String(format: "%.0f", $0) }.joined(separator: " and "), mean[database] ?? 0, spread * 100,
                    (ceilingCPU[database] ?? []).map { String(format: "%.0f", $0) }.joined(separator: " and ")))
        }
        out.append("")
        out.append(
            "| database | run | notes before | redemptions/s | p50 | p99 | ratio to ceiling | CPU per redemption | DB size | per 10^6 notes | prefill time | checks |"
        )
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for row in rows {
            let ratio = row.figures.rate / (mean[row.database] ?? .infinity)
            let size = row.size.map { mb($0.bytes) } ?? "–"
            let perMillion =
                row.size.map { row.notesBefore > 0 ? mb(Int64(Double($0.bytes) / Double(row.notesBefore) * 1_000_000)) : "–" }
                ?? "–"
            let prefill =
                row.prefillSeconds.map { seconds in
                    String(
                        format: "+%d in %.1f s (%.0f notes/s)", row.prefillAdded ?? 0, seconds,
                        Double(row.prefillAdded ?? 0) / max(seconds, 0.001))
                } ?? "–"
            var run = row.label
            if row.figures.perServer.count > 1 {
                run +=
                    " ("
                    + row.figures.perServer.map { String(format: "%.0f/s p99 %.0f ms", $0.rate, $0.latency.p99) }.joined(
                        separator: "; ") + ")"
            }
            let cpu = row.figures.cpu.map { String(format: "%.0f µs", $0.perOperation(row.figures.redemptions).both) } ?? "–"
            out.append(
                String(
                    format: "| %@ | %@ | %d | %.0f | %.1f ms | %.1f ms | %.2f | %@ | %@ | %@ | %@ | %@ |", row.database, run,
                    row.notesBefore, row.figures.rate,
                    row.figures.latency.p50, row.figures.latency.p99, ratio, cpu, size, perMillion, prefill,
                    row.ok ? "ok" : "FAILED"))
        }
        out.append("")
        out.append("Reproduce a row: the command after it below (same --clients/--redemptions).")
        for row in rows { out.append("  \(row.database) \(row.label), \(row.notesBefore) notes before: \(row.command)") }
        return out.joined(separator: "\n")
    }

    static func json(
        _ rows: [ReportRow], ceilings: [String: [Double]], ceilingCPU: [String: [Double]], commit: String, options: WalletLoad,
        ok: Bool
    ) -> [String: Any] {
        let mean = ceilings.mapValues { $0.reduce(0, +) / Double($0.count) }
        return [
            "commit": commit, "clients": options.clients, "redemptions_per_row": options.redemptions, "ok": ok,
            "insert_ceilings_per_s": ceilings, "insert_ceiling_cpu_us": ceilingCPU,
            "rows": rows.map { row -> [String: Any] in
                var out: [String: Any] = [
                    "database": row.database, "run": row.label, "notes_before": row.notesBefore,
                    "redemptions": row.figures.redemptions,
                    "redemptions_per_s": row.figures.rate, "p50_ms": row.figures.latency.p50, "p99_ms": row.figures.latency.p99,
                    "ratio": row.figures.rate / (mean[row.database] ?? .infinity), "failures": row.figures.failures, "ok": row.ok,
                    "command": row.command,
                    "checks": Dictionary(uniqueKeysWithValues: row.checks.map { ($0.name, $0.problem ?? "ok") }),
                    "per_process": row.figures.perServer.map {
                        [
                            "redemptions": $0.redemptions, "redemptions_per_s": $0.rate, "p50_ms": $0.latency.p50,
                            "p99_ms": $0.latency.p99,
                        ]
                    },
                ]
                if let size = row.size {
                    out["database_bytes"] = size.bytes
                    out["on_disk_bytes"] = size.onDisk
                    if !size.tables.isEmpty { out["table_bytes"] = size.tables }
                    if row.notesBefore > 0 {
                        out["bytes_per_million_notes"] = Double(size.bytes) / Double(row.notesBefore) * 1_000_000
                    }
                }
                if let cpu = row.figures.cpu?.perOperation(row.figures.redemptions) {
                    out["cpu_us_per_redemption"] = cpu.both
                    out["cpu_us_per_redemption_servers_and_load"] = cpu.own
                    out["cpu_us_per_redemption_postgres"] = cpu.postgres
                }
                if let seconds = row.prefillSeconds { out["prefill_seconds"] = seconds }
                if let notes = row.prefillNotes { out["prefilled_notes"] = notes }
                if let added = row.prefillAdded { out["prefill_added_notes"] = added }
                return out
            },
        ]
    }
}
