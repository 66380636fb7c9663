import OfflineNotes

/// A spendable note state as coin selection sees it.
public struct Coin: Sendable, Hashable {
    public let ref: StateRef
    public let amount: UInt64
    public let hops: Int
    public let expiresAt: Timestamp

    public init(ref: StateRef, amount: UInt64, hops: Int, expiresAt: Timestamp) {
        self.ref = ref
        self.amount = amount
        self.hops = hops
        self.expiresAt = expiresAt
    }
}

/// Chooses which notes pay an amount. Pure, so its rules are property-tested.
public enum CoinSelection {
    /// One chosen coin and the part of it that goes to the payee (the rest is change).
    public struct Pick: Sendable, Hashable {
        public let coin: Coin
        public let pay: UInt64
        public var change: UInt64 { coin.amount - pay }
    }

    /// Picks coins whose payee parts sum exactly to `amount`, or nil if the coins cannot.
    ///
    /// Rules, in order: one coin that covers the amount, with the fewest hops (shorter chains
    /// are smaller and can travel further), an exact match before one that needs change,
    /// then the smallest such coin, then the soonest to expire. Failing that, the largest
    /// coins first (fewest chains, fewest bytes), then the last one swapped for the smallest
    /// coin that still covers the remainder, and split. At most `maxCoins` coins.
    public static func select(_ coins: [Coin], amount: UInt64, maxCoins: Int = PaymentBundle.maxChains) -> [Pick]? {
        guard amount > 0, maxCoins > 0 else { return nil }
        let covering = coins.filter { $0.amount >= amount }
        if let best = covering.min(by: { singleOrder($0, $1, amount) }) {
            return [Pick(coin: best, pay: amount)]
        }
        let sorted = coins.sorted { a, b in
            a.amount != b.amount ? a.amount > b.amount : (a.hops != b.hops ? a.hops < b.hops : a.ref < b.ref)
        }
        var chosen: [Coin] = []
        var total: UInt64 = 0
        for coin in sorted where total < amount {
            guard chosen.count < maxCoins else { return nil }
            chosen.append(coin)
            total += coin.amount  // no overflow: total and coin are both below amount ≤ 2^63 − 1
        }
        guard total >= amount, let last = chosen.popLast() else { return nil }
        let before = total - last.amount
        let remainder = amount - before
        let used = Set(chosen.map(\.ref))
        let replacement =
            sorted.filter { !used.contains($0.ref) && $0.amount >= remainder }
            .min { singleOrder($0, $1, remainder) } ?? last
        return chosen.map { Pick(coin: $0, pay: $0.amount) } + [Pick(coin: replacement, pay: remainder)]
    }

    private static func singleOrder(_ a: Coin, _ b: Coin, _ amount: UInt64) -> Bool {
        if a.hops != b.hops { return a.hops < b.hops }
        let aExact = a.amount == amount
        let bExact = b.amount == amount
        if aExact != bExact { return aExact }
        if a.amount != b.amount { return a.amount < b.amount }
        if a.expiresAt != b.expiresAt { return a.expiresAt < b.expiresAt }
        return a.ref < b.ref
    }
}
