// wallet-tamper: a test helper for the end-to-end script. It does what a tampered phone would:
// it signs, with a wallet's own key but outside the wallet's rules, a second transfer of a note
// state that wallet already spent, paying a given request. Never part of a release.
//
//   wallet-tamper --wallet DIR --request FILE --out FILE
//
// FILE holds the request's QR frame text (as `wallet request --json` prints it); the payment is
// written as QR frame text for `wallet receive FILE`.
import Foundation
import OfflineNotes
import QRPayload
import WalletCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("wallet-tamper: \(message)\n".utf8))
    exit(1)
}

func value(_ flag: String) -> String {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: flag), args.indices.contains(i + 1) else { fail("missing \(flag)") }
    return args[i + 1]
}

do {
    let wallet = try Wallet.open(directory: value("--wallet"), passphrase: ProcessInfo.processInfo.environment["OW_PASSPHRASE"])
    guard let text = FileManager.default.contents(atPath: value("--request")) else { fail("cannot read the request") }
    var assembler = QRFrames.Assembler()
    var requestBytes: [UInt8]?
    for frame in String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline) where frame.hasPrefix(QRFrames.prefix) {
        requestBytes = try assembler.add(String(frame)) ?? requestBytes
    }
    guard let requestBytes else { fail("no complete request in the file") }
    let request = try PaymentRequest(decoding: requestBytes)
    // The wallet's first spent note: its chain still proves the state the wallet already gave away.
    guard let spent = try wallet.states(.spent).first else { fail("this wallet has spent nothing yet") }
    let amount = spent.amount
    guard request.amount > 0, request.amount <= amount else { fail("the request must be for 0 < amount ≤ \(amount)") }
    var outputs = [TransferOutput(owner: request.payee, amount: request.amount)]
    if amount > request.amount { outputs.append(TransferOutput(owner: wallet.publicKey, amount: amount - request.amount)) }
    let transfer = try Transfer.sign(
        input: spent.ref, outputs: outputs, nonce: request.nonce, createdAt: Timestamp(Date().timeIntervalSince1970),
        signer: wallet.identity.signer)
    let bundle = try PaymentBundle(chains: [spent.chain.appending(transfer, holding: 0)])
    let frames = try QRFrames.encode(bundle.encoded)
    guard FileManager.default.createFile(atPath: value("--out"), contents: Data((frames.joined(separator: "\n") + "\n").utf8))
    else {
        fail("cannot write the payment")
    }
    print("second transfer of state \(spent.ref) signed by \(wallet.publicKey.keyID): \(bundle.encoded.count) bytes")
} catch {
    fail("\(error)")
}
