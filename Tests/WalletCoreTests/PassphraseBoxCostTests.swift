import Testing
import WalletCore

/// The cost a passphrase box's header asks for is chosen by whoever wrote the file; the reader
/// must refuse a cost that would exhaust a phone before deriving anything (found while building
/// the passphrase-box fuzz target, docs/reliability.md §1).
@Suite struct PassphraseBoxCostTests {
    /// A box sealed at `cost`, as a hostile file would carry it: only the header matters, since
    /// the cost is read (and must be refused) before any key is derived.
    func header(log2N: UInt8, r: UInt8, p: UInt8) -> [UInt8] {
        Array("OWB1".utf8) + [1, 1, log2N, r, p] + [UInt8](repeating: 0, count: 16 + 12) + [UInt8](repeating: 0, count: 32)
    }

    /// N = 2^17 with r = 16 is 256 MiB of scrypt memory (p = 4 would run it four times): the old
    /// bound (N ≤ 2^20, r ≤ 16, p ≤ 4, up to 2 GiB) let such a header through to the derivation,
    /// which then failed as a wrong passphrase after the memory was spent.
    @Test func costsAboveFourTimesTheInteractiveWorkAreRefusedBeforeDeriving() {
        let refused = WalletError.corruptFile("unreasonable key-derivation cost")
        for (log2N, r, p) in [(UInt8(17), UInt8(16), UInt8(1)), (20, 16, 4), (16, 8, 4), (18, 8, 1)] {
            #expect(
                walletError {
                    try PassphraseBox.open(header(log2N: log2N, r: r, p: p), magic: Array("OWB1".utf8), passphrase: "pw")
                } == refused,
                "N = 2^\(log2N), r = \(r), p = \(p)")
        }
    }

    /// What the writers use (interactive and testing) and up to four times the interactive work
    /// are still read: they reach the decryption, which refuses the zero tag as a wrong passphrase.
    @Test func theCostsWritersUseAreStillAccepted() {
        for (log2N, r, p) in [(UInt8(10), UInt8(8), UInt8(1)), (10, 1, 1), (15, 8, 1)] {
            #expect(
                walletError {
                    try PassphraseBox.open(header(log2N: log2N, r: r, p: p), magic: Array("OWB1".utf8), passphrase: "pw")
                } == .wrongPassphrase,
                "N = 2^\(log2N), r = \(r), p = \(p)")
        }
    }
}
