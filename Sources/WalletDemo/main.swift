// The main job until the issuer server exists: in a temporary directory, create an issuer and
// two wallets, buy notes, and pay offline with change — printing each step.
//
//   swift run wallet-demo [--keep]
import DevIssuer
import Foundation
import OfflineNotes
import WalletCore

let keep = CommandLine.arguments.contains("--keep")
let eur = Currency("EUR")!
func money(_ v: UInt64) -> String { "\(Amount.format(v, currency: eur)) EUR" }
func step(_ n: Int, _ text: String) { print("\(n). \(text)") }

do {
    let root = NSTemporaryDirectory() + "offline-wallet-demo-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
    let now = Timestamp(Date().timeIntervalSince1970)

    let issuer = try DevIssuer(currency: eur, now: now, maxHops: 8, maxOfflineHolding: 50_000)
    step(1, "Issuer created: authority key \(issuer.authority.publicKey.keyID), issuing key \(issuer.issuingKey.publicKey.keyID); limits: hold ≤ \(money(issuer.limits.maxOfflineHolding)), ≤ \(issuer.limits.maxHops) hops")

    let alice = try Wallet.create(directory: root + "/alice")
    let bob = try Wallet.create(directory: root + "/bob")
    for w in [alice, bob] {
        try w.installTrust(authority: issuer.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
    }
    step(2, "Wallets created in \(root): Alice \(alice.publicKey.keyID), Bob \(bob.publicKey.keyID) (key files mode 0600)")

    try alice.deposit([try issuer.issue(10_000, to: alice.publicKey, now: now)])
    step(3, "Alice buys one note of \(money(10_000)) while online; spendable offline: \(money(try alice.balance().spendable))")

    let request = try bob.createRequest(amount: 3_000, payeeName: "Bob's stall", hints: [.init(kind: .qr, value: [])])
    step(4, "Bob shows a payment request for \(money(request.amount)) (\(request.encoded.count) bytes, nonce \(request.nonce))")

    let payment = try alice.pay(request, method: .qr)
    step(5, "Alice signs a transfer: \(money(3_000)) to Bob, \(money(7_000)) change to herself; bundle \(payment.bundle.count) bytes, input marked spent before sending")

    let received = try bob.receive(payment.bundle, for: request.nonce, method: .qr)
    step(6, "Bob verifies offline (issuer signature, owner signature, conservation, expiry, nonce) and signs a receipt for \(money(received.amount))")

    try alice.confirm(receipt: received.receipt.encoded)
    step(7, "Alice checks Bob's receipt: payment complete")

    let a = try alice.balance(), b = try bob.balance()
    step(8, "Balances — Alice: \(money(a.spendable)) spendable; Bob: \(money(b.spendable)) spendable (\(money(b.unsettled)) to settle online)")
    let conserved = a.spendable + b.spendable == 10_000
    print(conserved ? "Value conserved: \(money(a.spendable)) + \(money(b.spendable)) = \(money(10_000))" : "VALUE NOT CONSERVED")
    if keep { print("Wallets kept in \(root)") }
    exit(conserved ? 0 : 1)
} catch let error as WalletError {
    print("error: \(error)")
    exit(1)
} catch {
    print("error: \(error)")
    exit(1)
}
