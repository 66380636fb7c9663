import DevIssuer
import OfflineNotes
import PropertyBased
import TestSupport
import Testing
import WalletCore

@Suite struct CoinSelectionProperties {
    static let coins = zip(Gen.uint64(in: 1...5_000), Gen.int(in: 0...7)).array(of: 0...20)

    @Test func picksPayExactlyTheAmountFromDistinctCoins() async {
        await propertyCheck(count: 300, input: Self.coins, Gen.uint64(in: 1...40_000)) { raw, amount in
            let coins = raw.enumerated().map { i, c in
                Coin(ref: StateRef(uncheckedBytes: Array(repeating: UInt8(i), count: 32)), amount: c.0, hops: c.1, expiresAt: 100)
            }
            let total = coins.reduce(0) { $0 + $1.amount }
            guard let picks = CoinSelection.select(coins, amount: amount) else {
                // Refusing is only right when the coins cannot cover the amount in 16 chains.
                let best16 = coins.map(\.amount).sorted(by: >).prefix(16).reduce(0, +)
                #expect(best16 < amount, "refused \(amount) with \(total) available")
                return
            }
            #expect(picks.reduce(0) { $0 + $1.pay } == amount)
            #expect(Set(picks.map(\.coin.ref)).count == picks.count)
            #expect(picks.allSatisfy { $0.pay > 0 && $0.pay <= $0.coin.amount })
            #expect(picks.dropLast().allSatisfy { $0.change == 0 }, "only the last pick may make change")
            #expect(picks.count <= PaymentBundle.maxChains)
            if let single = coins.filter({ $0.amount >= amount }).map(\.hops).min() {
                #expect(picks.count == 1, "one coin covers the amount")
                #expect(picks[0].coin.hops == single, "the covering coin with the fewest hops")
            }
        }
    }

    @Test func exactMatchesAvoidChange() {
        let coins = [
            Coin(ref: StateRef(uncheckedBytes: Array(repeating: 1, count: 32)), amount: 900, hops: 0, expiresAt: 9),
            Coin(ref: StateRef(uncheckedBytes: Array(repeating: 2, count: 32)), amount: 500, hops: 0, expiresAt: 9),
        ]
        #expect(CoinSelection.select(coins, amount: 500)?.map(\.coin.amount) == [500])
        #expect(CoinSelection.select(coins, amount: 600)?.map(\.coin.amount) == [900])
        #expect(CoinSelection.select(coins, amount: 1_400)?.map(\.pay).reduce(0, +) == 1_400)
        #expect(CoinSelection.select(coins, amount: 1_401) == nil)
        #expect(CoinSelection.select(coins, amount: 0) == nil)
    }
}

@Suite struct EconomyProperties {
    /// Random offline economies: every honest payment verifies and is accepted, and value is
    /// conserved to the unit (DESIGN §2.2) across change, several notes and many hops.
    @Test func randomEconomiesConserveValue() async throws {
        await propertyCheck(count: 6, input: Gen.uint64()) { seed in
            // propertyCheck drops errors its body throws (it runs the body under try?): catch them here.
            #expect(throws: Never.self, "seed \(seed)") {
                var rng = SplitMix64(seed: seed)
                let h = try WalletHarness(maxHops: 6)
                var wallets: [Wallet] = []
                var issued: UInt64 = 0
                for i in 0..<4 {
                    let funds = (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt64.random(in: 100...5_000, using: &rng) }
                    wallets.append(try h.wallet("w\(i)", funds: funds))
                    issued += funds.reduce(0, +)
                }
                var paidTotal: UInt64 = 0
                var payments = 0
                for _ in 0..<25 {
                    let payer = Int.random(in: 0..<4, using: &rng)
                    let payee = (payer + Int.random(in: 1...3, using: &rng)) % 4
                    // Whatever status calls payable in one payment, `pay` pays.
                    let payable = try wallets[payer].balance().largestPayment
                    guard payable > 0 else { continue }
                    let amount = UInt64.random(in: 1...payable, using: &rng)
                    let request = try wallets[payee].createRequest(amount: amount)
                    let sent = try wallets[payer].pay(request)
                    if Bool.random(using: &rng) {
                        #expect(try wallets[payer].pay(request).bundle == sent.bundle)
                    }
                    let got = try wallets[payee].receive(sent.bundle, for: request.nonce)
                    #expect(got.amount == amount)
                    try wallets[payer].confirm(receipt: got.receipt.encoded)
                    paidTotal += amount
                    payments += 1
                    h.clock.now += 7
                }
                // A run where (nearly) every payer had nothing to pay would prove nothing.
                #expect(payments >= 15, "seed \(seed): only \(payments) of 25 payments were made")
                var held: UInt64 = 0
                for w in wallets {
                    let b = try w.balance()
                    #expect(b.reserved == 0)
                    held += b.total
                    for state in try w.states() where state.status == .available || state.status == .received {
                        let verified = try h.issuer.verifier.verify(state.chain, now: h.clock.now)
                        #expect(verified.owner == w.publicKey)
                    }
                }
                #expect(held == issued, "issued \(issued), held \(held) after paying \(paidTotal)")
            }
        }
    }

    /// The status lines always add up to the total, the total is what the wallet
    /// holds or has in flight, and `pay` accepts every amount up to what status calls payable
    /// and refuses one unit more with an error that points at the right remedy.
    @Test func balanceLinesAddUpAndSpendableIsPayable() async throws {
        await propertyCheck(count: 25, input: Gen.uint64()) { seed in
            // propertyCheck drops errors its body throws (it runs the body under try?): catch them here.
            #expect(throws: Never.self, "seed \(seed)") {
                var rng = SplitMix64(seed: seed)
                let h = try WalletHarness(maxHops: 1, maxOfflineHolding: 1_000_000)
                let alice = try h.wallet("alice")
                // One fresh note per transfer: change is at the hop limit.
                let bob = try h.wallet("bob", funds: [20_000, 20_000, 10_000])
                let carol = try h.wallet("carol")
                // Notes with long lives, inside the no-spend window, and about to expire outright.
                for _ in 0..<Int.random(in: 0...6, using: &rng) {
                    let lifetime: UInt64 = [86_400, 250, 90].randomElement(using: &rng) ?? 86_400
                    try alice.deposit([
                        try h.issuer.issue(
                            UInt64.random(in: 1...5_000, using: &rng), to: alice.publicKey, now: h.clock.now, lifetime: lifetime)
                    ])
                }
                // Received notes: at the hop limit (maxHops 1), so they need a refresh.
                for _ in 0..<Int.random(in: 0...2, using: &rng) {
                    try h.transfer(UInt64.random(in: 1...3_000, using: &rng), from: bob, to: alice)
                }
                // A payment without a receipt: reserved.
                let before = try alice.balance()
                if before.largestPayment > 0, Bool.random(using: &rng) {
                    _ = try alice.pay(try carol.createRequest(amount: UInt64.random(in: 1...before.largestPayment, using: &rng)))
                }
                h.clock.now += UInt64.random(in: 0...120, using: &rng)

                let b = try alice.balance()
                #expect(b.spendable + b.needsRefresh + b.needsOnlineCheck + b.expired + b.reserved == b.total)
                let held = try alice.states().filter { $0.status == .available || $0.status == .received }.map(\.amount).reduce(
                    0, +)
                let inFlight = try alice.pendingPayments().map(\.amount).reduce(0, +)
                #expect(b.total == held + inFlight)
                #expect(b.largestPayment <= b.spendable)
                #expect(b.unsettled <= b.total)
                if b.largestPayment > 0 {
                    let amount = UInt64.random(in: 1...b.largestPayment, using: &rng)
                    #expect(try alice.pay(try carol.createRequest(amount: amount)).amount == amount)
                }
                let after = try alice.balance()
                let tooMuch = after.spendable + 1
                let error = walletError { try alice.pay(try carol.createRequest(amount: tooMuch)) }
                if after.needsRefresh > 0 {
                    #expect(error == .needsRefresh(after.needsRefresh, currency: h.eur))
                } else {
                    #expect(error == .insufficientFunds(available: after.spendable, requested: tooMuch, currency: h.eur))
                }
            }
        }
    }
}
