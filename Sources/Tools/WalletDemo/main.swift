// `wallet-demo`: the wallet engine end to end, every step printed and checked.
//
//   swift run wallet-demo                    offline only: an in-memory issuer, two wallets, a payment with change
//   swift run wallet-demo --server URL       against a running wallet-server (started with --dev-funding):
//                                            accounts, key registration, purchase over HTTP, offline payment, online redemption
//   scripts/demo                             starts wallet-server on SQLite and runs the second form against it
//
// Every step is printed; the exit status is non-zero if anything fails or value is not conserved.
import DevIssuer
import Foundation
import OfflineNotes
import Synchronization
import WalletCore
import WalletSync

let arguments = CommandLine.arguments
let keep = arguments.contains("--keep")
let serverURL = arguments.firstIndex(of: "--server").flatMap {
    arguments.indices.contains($0 + 1) ? URL(string: arguments[$0 + 1]) : nil
}
guard let eur = Currency("EUR") else { fatalError("EUR is a valid currency code") }
func money(_ v: UInt64) -> String { "\(Amount.format(v, currency: eur)) EUR" }
func signedMoney(_ v: Int64) -> String { v < 0 ? "-" + money(v.magnitude) : money(v.magnitude) }

/// Numbers the printed steps.
final class Steps: Sendable {
    private let count = Mutex(0)
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
let steps = Steps()
func step(_ text: String) { print("\(steps.next()). \(text)") }

/// Alice pays Bob 30.00 offline from a 100.00 note; both wallets must already hold trust.
func payOffline(alice: Wallet, bob: Wallet) throws {
    let request = try bob.createRequest(amount: 3_000, payeeName: "Bob's stall", hints: [.init(kind: .qr, value: [])])
    step(
        "Bob shows a payment request for \(money(request.amount)) (\(request.encoded.count) bytes, nonce \(request.nonce)) — no network needed from here"
    )
    let payment = try alice.pay(request, method: .qr)
    step(
        "Alice signs a transfer: \(money(3_000)) to Bob, the rest as change to herself; bundle \(payment.bundle.count) bytes, input marked spent before sending"
    )
    let received = try bob.receive(payment.bundle, for: request.nonce, method: .qr)
    step(
        "Bob verifies offline (issuer signature, owner signature, conservation, expiry, nonce) and signs a receipt for \(money(received.amount))"
    )
    try alice.confirm(receipt: received.receipt.encoded)
    step("Alice checks Bob's receipt: payment complete")
}

func offlineDemo(root: String) throws -> Bool {
    let now = Timestamp(Date().timeIntervalSince1970)
    let issuer = try DevIssuer(currency: eur, now: now, maxHops: 8, maxOfflineHolding: 50_000)
    step(
        "In-memory issuer: authority key \(issuer.authority.publicKey.keyID), issuing key \(issuer.issuingKey.publicKey.keyID); hold ≤ \(money(issuer.limits.maxOfflineHolding)), ≤ \(issuer.limits.maxHops) hops"
    )
    let alice = try Wallet.create(directory: root + "/alice")
    let bob = try Wallet.create(directory: root + "/bob")
    for w in [alice, bob] {
        try w.installTrust(authority: issuer.authority.publicKey, keyset: issuer.keyset.encoded, limits: issuer.limits.encoded)
    }
    step("Wallets created in \(root): Alice \(alice.publicKey.keyID), Bob \(bob.publicKey.keyID) (key files mode 0600)")
    try alice.deposit([try issuer.issue(10_000, to: alice.publicKey, now: now)])
    step("Alice buys one note of \(money(10_000)); spendable offline: \(money(try alice.balance().spendable))")
    try payOffline(alice: alice, bob: bob)
    let a = try alice.balance(), b = try bob.balance()
    step(
        "Balances — Alice: \(money(a.spendable)) spendable; Bob: \(money(b.spendable)) spendable (\(money(b.unsettled)) to settle online)"
    )
    let conserved = a.spendable + b.spendable == 10_000
    print(conserved ? "Value conserved: \(money(a.spendable)) + \(money(b.spendable)) = \(money(10_000))" : "VALUE NOT CONSERVED")
    return conserved
}

func serverDemo(_ url: URL, root: String) async throws -> Bool {
    let suffix = UUID().uuidString.prefix(8).lowercased()
    let aliceServer = IssuerClient(serverURL: url)
    let bobServer = IssuerClient(serverURL: url)
    let config = try await aliceServer.config()
    step(
        "Server \(url.absoluteString): currency \(config.currency), quick amounts \(config.quickAmounts.map { signedMoney($0) }.joined(separator: ", "))"
    )
    for (client, name) in [(aliceServer, "alice"), (bobServer, "bob")] {
        try await client.register(email: "\(name)-\(suffix)@example.com", password: "demo password \(suffix)")
        try await client.login(email: "\(name)-\(suffix)@example.com", password: "demo password \(suffix)")
    }
    step("Accounts registered and logged in: alice-\(suffix)@example.com, bob-\(suffix)@example.com")
    let alice = try Wallet.create(directory: root + "/alice")
    let bob = try Wallet.create(directory: root + "/bob")
    for (client, wallet) in [(aliceServer, alice), (bobServer, bob)] {
        try await client.installTrust(into: wallet)
        try await client.registerKey(of: wallet)
    }
    step("Wallets pinned the issuer authority and registered their keys with proof of possession")
    try await aliceServer.fund(10_000)
    step("Alice's account funded with \(money(10_000)) (development funding)")
    let bought = try await aliceServer.purchase(10_000, into: alice)
    step(
        "Alice buys \(money(bought)) of offline notes; account \(signedMoney(try await aliceServer.account().balance)), offline \(money(try alice.balance().spendable))"
    )
    try payOffline(alice: alice, bob: bob)
    let credited = try await bobServer.redeemReceived(from: bob)
    step(
        "Back online, Bob redeems: \(money(credited)) credited; his account is now \(signedMoney(try await bobServer.account().balance))"
    )
    let again = try await bobServer.redeemReceived(from: bob)
    step("Redeeming again credits \(money(again)) (each note state is credited at most once)")
    let a = try alice.balance().spendable
    let bAccount = try await bobServer.account().balance
    let conserved = Int64(a) + bAccount == 10_000 && again == 0
    print(
        conserved
            ? "Value conserved: Alice \(money(a)) offline + Bob \(signedMoney(bAccount)) settled = \(money(10_000))"
            : "VALUE NOT CONSERVED")
    return conserved
}

let root = NSTemporaryDirectory() + "offline-wallet-demo-" + UUID().uuidString
do {
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
    let ok: Bool
    if let serverURL { ok = try await serverDemo(serverURL, root: root) } else { ok = try offlineDemo(root: root) }
    if keep { print("Wallets kept in \(root)") }
    exit(ok ? 0 : 1)
} catch {
    print("error: \(error)")
    exit(1)
}
