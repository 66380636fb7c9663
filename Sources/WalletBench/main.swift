// Protocol benchmark. Prints ratios against a reference measured in the same run, because
// this machine's speed varies minute to minute (../shared/TOOLCHAIN.md).
//
//   swift run -c release wallet-bench [--quick]
//
// Reference: raw ECDSA-P256-SHA256 verification with swift-crypto, key and signature already
// parsed, over a message of a transfer's size. Measured: whole chain verification from bytes
// (decode, hashing, linkage, arithmetic, key decompression, every signature).
import Crypto
import DevIssuer
import Foundation
import OfflineNotes

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 7
let now: Timestamp = 1_800_000_000

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Best time per iteration over several rounds (least disturbed by the noisy machine).
func best(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
    var result = Double.infinity
    for _ in 0..<rounds {
        result = min(result, try seconds { for _ in 0..<iterations { try body() } } / Double(iterations))
    }
    return result
}

guard let eur = Currency("EUR") else { fatalError("EUR is a valid currency code") }
let issuer = try DevIssuer(currency: eur, now: now, maxHops: 8)
let people = (0..<9).map { _ in SoftwareSigner() }

func chain(hops: Int) throws -> Chain {
    var c = try issuer.issue(100_000, to: people[0].publicKey, now: now)
    for hop in 0..<hops {
        guard let held = c.heldOutput else { fatalError("a chain built here always holds an output") }
        let t = try Transfer.sign(
            input: c.heldRef,
            outputs: [TransferOutput(owner: people[hop + 1].publicKey, amount: held.amount - 10),
                      TransferOutput(owner: people[hop].publicKey, amount: 10)],
            nonce: Nonce(uncheckedBytes: Array(repeating: UInt8(hop), count: 16)), createdAt: now, signer: people[hop])
        c = c.appending(t, holding: 0)
    }
    return c
}

// Reference: raw verify.
let refKey = P256.Signing.PrivateKey()
let refMessage = [UInt8](repeating: 0xA5, count: 160)
let refSignature = try refKey.signature(for: refMessage)
let refPublic = refKey.publicKey
let verifyIterations = quick ? 300 : 1_500
func rawVerify() -> Double {
    best(verifyIterations) {
        guard refPublic.isValidSignature(refSignature, for: refMessage) else { fatalError("reference signature invalid") }
    }
}

print("Offline Wallet protocol benchmark (\(rounds) rounds, best of each; release build expected)")
print("ratio = time per signature inside chain verification / raw swift-crypto P-256 verify (goal ≤ 1.10)")
let verifier = issuer.verifier
var rows: [(String, String)] = []
for hops in [1, 4, 8] {
    let bytes = try chain(hops: hops).encoded
    let iterations = max(50, verifyIterations / (hops + 1))
    // Interleave the reference with each measurement so both see the same machine.
    let raw = rawVerify()
    // Cold: a fresh key cache every time, so every owner key is decompressed.
    let cold = try best(iterations) {
        _ = try NoteVerifier(keyset: issuer.keyset, limits: issuer.limits).verifyChain(bytes, now: now)
    }
    // Warm: owner keys seen before (the usual case for a wallet and for the server).
    let warm = try best(iterations) { _ = try verifier.verifyChain(bytes, now: now) }
    let signatures = Double(hops + 1)
    print(String(format: "chain %d hop%@: warm %6.0f chains/s, %5.1f µs/sig, ratio %.3f | cold %6.0f chains/s, %5.1f µs/sig, ratio %.3f | raw verify %5.1f µs (%5.0f/s)",
                 hops, hops == 1 ? " " : "s", 1 / warm, warm / signatures * 1e6, warm / signatures / raw,
                 1 / cold, cold / signatures * 1e6, cold / signatures / raw, raw * 1e6, 1 / raw))
}

// Where the overhead goes: the pieces of one hop measured alone.
let compressed = Array(refPublic.compressedRepresentation)
let decompress = best(verifyIterations) { _ = try? P256.Signing.PublicKey(compressedRepresentation: compressed) }
let sampleTransfer = try chain(hops: 1).transfers[0].encoded
let decode = try best(verifyIterations * 10) { _ = try Transfer(decoding: sampleTransfer) }
let raw = rawVerify()
print(String(format: "\nper-hop pieces: key decompression %.1f µs (%.3f of a verify), transfer decode+hash %.2f µs (%.3f)",
             decompress * 1e6, decompress / raw, decode * 1e6, decode / raw))

print("\nencoded payment bundle size (one chain, change on every hop):")
for hops in [1, 4, 8] {
    let size = try PaymentBundle(chains: [try chain(hops: hops)]).encoded.count
    print("  \(hops) hop\(hops == 1 ? " " : "s"): \(size) bytes\(hops == 1 ? "  (goal ≤ 350)" : "")")
}
