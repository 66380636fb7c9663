import CrashPoints
import Testing

/// The registry the crash sweep enumerates, and how `OW_CRASH_AT` is read. (That an armed
/// point really SIGKILLs its process is what `scripts/crash-sweep` checks, for every point.)
@Suite struct CrashPointsTests {
    @Test func namesAreUniqueDottedAndSided() {
        let names = CrashPoint.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for point in CrashPoint.allCases {
            #expect(point.rawValue.split(separator: ".").count == 3, "\(point.rawValue): side.flow.step")
            #expect(point.rawValue.hasPrefix(point.side.rawValue + "."))
            #expect(point.between.contains(" | "), "\(point.rawValue) says which durable steps it sits between")
        }
        #expect(CrashPoint.allCases.contains { $0.side == .wallet })
        #expect(CrashPoint.allCases.contains { $0.side == .issuer })
    }

    @Test func parsesNameAndHit() throws {
        let plain = try #require(CrashPoints.parse("wallet.pay.committed"))
        #expect(plain.point == .walletPayCommitted && plain.hit == 1)
        let third = try #require(CrashPoints.parse("issuer.redeem.committed#3"))
        #expect(third.point == .issuerRedeemCommitted && third.hit == 3)
    }

    @Test func refusesWhatNamesNoPoint() {
        for text in [
            "", "wallet.pay", "wallet.pay.committed#0", "wallet.pay.committed#-1", "wallet.pay.committed#x",
            "wallet.pay.committed#1#2", "WALLET.PAY.COMMITTED", " wallet.pay.committed",
        ] {
            #expect(CrashPoints.parse(text) == nil, "\(text)")
        }
    }
}
