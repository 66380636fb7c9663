import IssuerTesting
import Testing

/// Rate-limit windows follow the issuer's clock (injected), not the wall clock: a test sets the
/// time and knows which window every hit falls in, however slowly it runs.
@Suite struct RateLimiterTests {
    @Test(arguments: Backend.available)
    func theWindowIsTheIssuersClockMinute(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        // 1_800_000_000 is a whole minute: the window runs to +60.
        h.clock.now = IssuerHarness.start + 50
        for _ in 0..<3 { #expect(try await h.issuer.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == nil) }
        #expect(
            try await h.issuer.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == 10, "the 4th hit waits out the 10 s left")
        h.clock.now = IssuerHarness.start + 59
        #expect(try await h.issuer.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == 1)
        #expect(try await h.issuer.rateLimit(bucket: "other", limit: 3, windowSeconds: 60) == nil, "buckets count apart")

        // The next minute on the issuer's clock is a new window.
        h.clock.now = IssuerHarness.start + 60
        for _ in 0..<3 { #expect(try await h.issuer.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == nil) }
        #expect(try await h.issuer.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == 60)

        // Another process on the same database counts this window's hits once it has heard of
        // them (it admits what it sees locally until its next flush: the documented overshoot).
        try await h.issuer.flushRateLimits()
        let second = try await h.secondProcess()
        #expect(try await second.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == nil)
        try await second.flushRateLimits()
        #expect(try await second.rateLimit(bucket: "b", limit: 3, windowSeconds: 60) == 60)
    }
}
