import SQLStore

/// Many rows as PostgreSQL array parameters, one array per column, read back with `unnest`.
/// A redemption batch's bulk statements then have one short text whatever the batch size:
/// PostgreSQL parses and plans ten parameters instead of a VALUES list of thousands (parse
/// and plan were a quarter of the server's CPU in a redemption). SQLite keeps the VALUES lists:
/// it has no arrays, and it prepares statements itself.
///
/// Array parameters carry no NULL elements, so a nullable column stands NULL for a value none
/// of its real rows can hold (an empty blob, 0, an empty text) and the select list turns it back
/// with NULLIF. A real value equal to that stand-in is refused rather than stored as NULL.
struct BulkColumns {
    enum Kind {
        case bytea, bigint, text

        var arrayType: String {
            switch self {
            case .bytea: "BYTEA[]"
            case .bigint: "BIGINT[]"
            case .text: "TEXT[]"
            }
        }

        var standIn: String {
            switch self {
            case .bytea: "''::bytea"
            case .bigint: "0"
            case .text: "''"
            }
        }
    }

    struct Column {
        let kind: Kind
        var nullable = false
        init(_ kind: Kind, nullable: Bool = false) {
            self.kind = kind
            self.nullable = nullable
        }
    }

    /// One array parameter per column, in order.
    let binds: [any SQLBindable]
    /// `unnest(CAST(? AS …[]), …) AS alias(c1, c2, …)`: the rows, for a FROM clause.
    let from: String
    /// `c1, NULLIF(c2, …), …`: the columns in order, NULL where the stand-in was, for a select list.
    let select: String

    init(_ rows: [[any SQLBindable]], columns: [Column], alias: String = "u") throws {
        var blobs = [[[UInt8]]](repeating: [], count: columns.count)
        var integers = [[Int64]](repeating: [], count: columns.count)
        var texts = [[String]](repeating: [], count: columns.count)
        for row in rows {
            guard row.count == columns.count else {
                throw IssuerError.storage("bulk row of \(row.count) values for \(columns.count) columns")
            }
            for (i, (value, column)) in zip(row, columns).enumerated() {
                switch (column.kind, value.sqlValue) {
                case (.bytea, .blob(let b)) where !(column.nullable && b.isEmpty): blobs[i].append(b)
                case (.bytea, .null) where column.nullable: blobs[i].append([])
                case (.bigint, .integer(let v)) where !(column.nullable && v == 0): integers[i].append(v)
                case (.bigint, .null) where column.nullable: integers[i].append(0)
                case (.text, .text(let s)) where !(column.nullable && s.isEmpty): texts[i].append(s)
                case (.text, .null) where column.nullable: texts[i].append("")
                default: throw IssuerError.storage("bulk column \(i + 1) cannot hold \(value.sqlValue)")
                }
            }
        }
        binds = columns.indices.map { i -> any SQLBindable in
            switch columns[i].kind {
            case .bytea: SQLValue.blobs(blobs[i])
            case .bigint: SQLValue.integers(integers[i])
            case .text: SQLValue.texts(texts[i])
            }
        }
        let names = columns.indices.map { "c\($0 + 1)" }
        from =
            "unnest(" + columns.map { "CAST(? AS \($0.kind.arrayType))" }.joined(separator: ", ")
            + ") AS \(alias)(\(names.joined(separator: ", ")))"
        select = zip(names, columns).map { name, column in
            column.nullable ? "NULLIF(\(alias).\(name), \(column.kind.standIn))" : "\(alias).\(name)"
        }
        .joined(separator: ", ")
    }
}
