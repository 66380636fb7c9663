import Foundation
import IssuerTesting
import Testing

@testable import IssuerCore

/// A lost answer to a refresh does not log the user out; a real reuse still
/// revokes the login and raises the alarm.
@Suite struct RefreshReuseTests {
    func alarms(_ h: IssuerHarness) async throws -> Int {
        try await h.issuer.auditLog().filter { $0.action == "refresh_reuse" }.count
    }

    /// A user's first refresh token, and its successor after one rotation.
    func rotatedOnce(_ h: IssuerHarness) async throws -> (account: Int64, first: String, next: String) {
        let (account, _) = try await h.user("ann")
        let first = try await h.issuer.issueRefreshToken(account: account)
        return (account, first, try await h.issuer.rotateRefreshToken(first).refreshToken)
    }

    /// A revoked (logged out) token is answered as an ended session, never as a wrong
    /// password: the user did not type one.
    @Test(arguments: Backend.available)
    func aRevokedRefreshTokenSaysTheSessionEnded(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, first, next) = try await rotatedOnce(h)
        try await h.issuer.revokeRefreshToken(next)
        let error = await issuerError { try await h.issuer.rotateRefreshToken(next) }
        #expect(error == .sessionEnded)
        #expect(error?.code == "session_ended")
        #expect(error?.description.contains("Log in again") == true)
        #expect(!(error?.description.contains("Wrong") ?? true))
        // A token that was never issued reads the same.
        #expect(await issuerError { try await h.issuer.rotateRefreshToken(first + "x") } == .sessionEnded)
    }

    @Test(arguments: Backend.available)
    func aLostAnswerGetsTheSameTokenAgain(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (account, first, next) = try await rotatedOnce(h)
        // The answer was lost; the client presents the old token again, a little later.
        h.clock.now += 30
        let again = try await h.issuer.rotateRefreshToken(first)
        #expect(again.account == account)
        #expect(again.refreshToken == next)
        // Another server process sharing the database answers the same.
        let other = try await h.secondProcess()
        #expect(try await other.rotateRefreshToken(first).refreshToken == next)
        #expect(try await alarms(h) == 0)
        // The login lives on: the successor rotates normally, once.
        let third = try await h.issuer.rotateRefreshToken(next)
        #expect(third.refreshToken != next)
        #expect(try await h.issuer.rotateRefreshToken(third.refreshToken).account == account)
        #expect(try await alarms(h) == 0)
    }

    @Test(arguments: Backend.available)
    func reuseAfterTheWindowRevokesTheFamily(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, first, next) = try await rotatedOnce(h)
        h.clock.now += UInt64(h.issuer.config.refreshReuseWindow) + 1
        #expect(await issuerError { try await h.issuer.rotateRefreshToken(first) } == .sessionEnded)
        #expect(try await alarms(h) == 1)
        // The whole family is revoked: the successor no longer works either.
        #expect(await issuerError { try await h.issuer.rotateRefreshToken(next) } == .sessionEnded)
    }

    @Test(arguments: Backend.available)
    func reuseAfterTheSuccessorWasUsedRevokesTheFamily(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, first, next) = try await rotatedOnce(h)
        let third = try await h.issuer.rotateRefreshToken(next)
        // Within the window, but the successor has been used: someone else holds the old token.
        #expect(await issuerError { try await h.issuer.rotateRefreshToken(first) } == .sessionEnded)
        #expect(try await alarms(h) == 1)
        #expect(await issuerError { try await h.issuer.rotateRefreshToken(third.refreshToken) } == .sessionEnded)
    }

    /// Concurrent presentations of one token (a client retrying while the first request is
    /// still running) all get the same successor; none is taken for theft.
    @Test(arguments: Backend.available)
    func concurrentRotationsOfOneTokenAgree(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (account, _) = try await h.user("ann")
        let first = try await h.issuer.issueRefreshToken(account: account)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<8 {
                let issuer = i % 2 == 0 ? h.issuer : other
                group.addTask { try await issuer.rotateRefreshToken(first).refreshToken }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(try await alarms(h) == 0)
    }
}
