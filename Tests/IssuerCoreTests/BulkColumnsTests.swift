import IssuerTesting
import SQLStore
import Testing

@testable import IssuerCore

/// On PostgreSQL a redemption batch's bulk statements pass one array per column, and
/// NULL travels as a stand-in turned back by NULLIF. A real value equal to the stand-in would be
/// stored as NULL, so it is refused instead.
@Suite struct BulkColumnsTests {
    static let columns: [BulkColumns.Column] = [
        .init(.bytea), .init(.bytea, nullable: true), .init(.bigint, nullable: true), .init(.text, nullable: true),
    ]

    @Test func rowsBecomeOneArrayPerColumnWithNullsAsStandIns() throws {
        let bulk = try BulkColumns(
            [
                [[UInt8](arrayLiteral: 1), SQLValue.null, Int64(5), SQLValue.null],
                [[UInt8](arrayLiteral: 2), [UInt8](arrayLiteral: 9), SQLValue.null, "x"],
            ], columns: Self.columns)
        #expect(bulk.binds.map(\.sqlValue) == [.blobs([[1], [2]]), .blobs([[], [9]]), .integers([5, 0]), .texts(["", "x"])])
        #expect(
            bulk.from
                == "unnest(CAST(? AS BYTEA[]), CAST(? AS BYTEA[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[])) AS u(c1, c2, c3, c4)")
        #expect(bulk.select == "u.c1, NULLIF(u.c2, ''::bytea), NULLIF(u.c3, 0), NULLIF(u.c4, '')")
    }

    @Test func aValueEqualToItsColumnsStandInOrANullWhereNoneBelongsIsRefused() {
        for row: [any SQLBindable] in [
            [[UInt8](arrayLiteral: 1), [UInt8](), SQLValue.null, SQLValue.null],  // a real empty blob
            [[UInt8](arrayLiteral: 1), SQLValue.null, Int64(0), SQLValue.null],  // a real 0
            [[UInt8](arrayLiteral: 1), SQLValue.null, SQLValue.null, ""],  // a real empty text
            [SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null],  // NULL in a column without
            [[UInt8](arrayLiteral: 1), SQLValue.null, "5", SQLValue.null],  // a text for a number
            [[UInt8](arrayLiteral: 1), SQLValue.null, SQLValue.null],  // a value short
        ] {
            #expect(throws: IssuerError.self) { try BulkColumns([row], columns: Self.columns) }
        }
    }

    /// What the arrays wrote reads back with its NULLs, on the database that uses them.
    @Test(.enabled(if: Backend.url != nil))
    func spentStatesWrittenFromArraysKeepTheirNulls() async throws {
        let h = try await IssuerHarness(.postgres)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chains = try h.pay(3_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: chains) == [.credited(amount: 3_000)])
        let (markers, transfers) = try await h.database.transaction { conn in
            (
                try await conn.queryOne(
                    "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM spent_state WHERE kind = 'redeem' AND transfer IS NULL AND account_id = ? AND funded_by = 'float' AND amount = 3000",
                    bob)?.int("n"),
                try await conn.queryOne(
                    "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM spent_state WHERE kind = 'transfer' AND transfer IS NOT NULL AND account_id IS NULL AND funded_by IS NULL"
                )?.int("n")
            )
        }
        #expect(markers == 1)
        #expect(transfers == 1)
        try await h.expectBooksBalance()
    }
}
