import Ethereum
import Testing

/// Expected raw bytes and hashes come from eth-account 0.14.0 (installed here), running
/// `Account.sign_transaction(tx, key)` on the dynamic-fee example of its own documentation
/// (docstring of `Account.sign_transaction`: key 0x4c0883a6…2318, nonce 34, gas 100000, fees 2 gwei,
/// data "abcdef", to 0x09616C3d…6609, value 0x5af3107a4000, chainId 1337), with the access
/// list left empty (this client never writes one), plus the same at chainId 1900, a contract
/// creation with 100 bytes of data, a transaction with very large fields, and two whose r or s
/// is shorter than 32 bytes. RFC 6979 makes
/// signatures deterministic, so the bytes must match exactly.
@Suite struct EIP1559TransactionTests {
    static let key = try! PrivateKey(hex: "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
    static let docsTo = try! Address(hex: "0x09616C3d61b3331fc4109a9E41a8BDB7d9776609")

    static func docs(chainID: UInt64) -> EIP1559Transaction {
        EIP1559Transaction(
            chainID: chainID, nonce: 34, maxPriorityFeePerGas: 2_000_000_000, maxFeePerGas: 2_000_000_000,
            gasLimit: 100_000, to: docsTo, value: 0x5af3107a4000, data: Array("abcdef".utf8))
    }

    static let vectors: [(String, EIP1559Transaction, raw: String, hash: String)] = [
        (
            "docs, chain ID 1337", docs(chainID: 1337),
            "02f8798205392284773594008477359400830186a09409616c3d61b3331fc4109a9e41a8bdb7d9776609865af3107a400086616263646566c001a072e609158b88f19ed6e99d8651db59d219aeac08fc0f1fd6659ccf8da690fff2a07a83e6b119706262de1be32ca65cfa59ba4fc340bf47e2242a95aef3622c1a87",
            "3e1e1c8ba08c22a403a517e4600bdebf7c51e19bc3f745b7e68b956197799e95"
        ),
        (
            "docs, chain ID 1900", docs(chainID: 1900),
            "02f87982076c2284773594008477359400830186a09409616c3d61b3331fc4109a9e41a8bdb7d9776609865af3107a400086616263646566c001a0875ffc9aeb11f777d2d7f46783a196ce62e5340009303dd91e89318a6ebd3443a05b27d718258adefe9300abd3b3578c38e67720ab4931466a02d859af582dfe60",
            "f5bc99ae9f035ea74c87a251b0f06ce7295b185094e2a16773b4bf7353ddd58b"
        ),
        (
            "contract creation",
            EIP1559Transaction(
                chainID: 1, nonce: 0, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 30_000_000_000,
                gasLimit: 3_000_000, to: nil, value: 0, data: Array(0..<100)),
            "02f8bd0180843b9aca008506fc23ac00832dc6c08080b864000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60616263c080a0821172e8619794bfd3232247208aaf627d8e0a837395da3c83992ab4725886b8a046784cb891ae8f935fdadf7620dea6961530aafc303ddd09c271daebfabadb3e",
            "14580de5b5fb08bcafb5174ec969cd37e4f256449e937f9a3cc09133a01e9727"
        ),
        (
            "large fields",
            EIP1559Transaction(
                chainID: 1 << 40, nonce: UInt64.max - 1, maxPriorityFeePerGas: 0, maxFeePerGas: UInt128(1) << 100,
                gasLimit: 1 << 63, to: try! Address(hex: "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"),
                value: 1_000_000_000_000_000_000_000_000_000_000, data: []),
            "02f8908601000000000088fffffffffffffffe808d10000000000000000000000000888000000000000000947e5f4552091a69125d5dfcb7b8c2659029395bdf8d0c9f2c9cd04674edea4000000080c001a00d8e52c5d0532f9059bc0c22c51d77bcd24effb1827e1de411a516ce4b04e416a0176f3dc8622373f5fa040b7ce1550af4ea80b21ca4f8def4d79772c3b1057b06",
            "42ff20c1328cf5467a7d623caf8c4db6a47e7874720de603487582c5677c74db"
        ),
        // Nonces 56 and 9 of a plain transfer (chain ID 1337, 1 wei to key 1's address, gas 21000,
        // fees 1 / 2 gwei) give an r, and an s, below 2^248: RLP must drop the leading zero byte
        // (0x9f…, 31 bytes) rather than write 32 bytes.
        (
            "r with a leading zero byte", transfer(nonce: 56),
            "02f86b82053938843b9aca008477359400825208947e5f4552091a69125d5dfcb7b8c2659029395bdf0180c0019f97c2f56b08269af52626e678fe3577e7e47a0529141710f99c9f4bd4de8cb4a02267c75b3fea3fe576ac96bd93788be184b912bf1eef8ff5a88d34eccc76bc39",
            "1fb720899dd26145ccc5de3c26ff580e69d6408a22fc4038d7efba48d3b8acb6"
        ),
        (
            "s with a leading zero byte", transfer(nonce: 9),
            "02f86b82053909843b9aca008477359400825208947e5f4552091a69125d5dfcb7b8c2659029395bdf0180c001a0bdad099e93d7317fb98b57b0cdf60f8805922d15b434b8e17adb2f3aafdeb4009f42abd5278f48651d34447fd18bf526c1c50246b07a693add585a63a1c7a15f",
            "fc67dd36fd428f777107727f62c994d79836f6a845808f6c287d4751b2136bb1"
        ),
    ]

    static func transfer(nonce: UInt64) -> EIP1559Transaction {
        EIP1559Transaction(
            chainID: 1337, nonce: nonce, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2_000_000_000,
            gasLimit: 21_000, to: try! Address(hex: "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"), value: 1)
    }

    @Test func signsLikeEthAccount() throws {
        for (name, transaction, raw, hash) in Self.vectors {
            let signed = try transaction.signed(with: Self.key)
            #expect(hex(signed.raw) == raw, "\(name)")
            #expect(hex(signed.hash) == hash, "\(name)")
            #expect(hex(Keccak256.hash(signed.raw)) == hash, "\(name)")
        }
    }

    @Test func signatureRecoversTheSender() throws {
        for (name, transaction, _, _) in Self.vectors {
            let signed = try transaction.signed(with: Self.key)
            #expect(try signed.sender() == Self.key.address, "\(name)")
            #expect(
                try PrivateKey.recoverAddress(hash: transaction.signingHash, r: signed.r, s: signed.s, v: signed.yParity)
                    == Self.key.address)
        }
    }

    @Test func rawBytesDecodeBack() throws {
        for (name, transaction, raw, hash) in Self.vectors {
            let decoded = try SignedTransaction(raw: bytes(raw))
            #expect(decoded.transaction == transaction, "\(name)")
            #expect(hex(decoded.hash) == hash)
            #expect(hex(decoded.raw) == raw)
        }
    }

    @Test func refusesOtherTypesAndDamagedBytes() throws {
        let raw = bytes(Self.vectors[0].raw)
        #expect(ethereumError { _ = try SignedTransaction(raw: [0x01] + raw.dropFirst()) } != nil)
        #expect(ethereumError { _ = try SignedTransaction(raw: Array(raw.dropFirst())) } != nil)
        #expect(ethereumError { _ = try SignedTransaction(raw: Array(raw.dropLast())) } != nil)
        #expect(ethereumError { _ = try SignedTransaction(raw: []) } != nil)
        // A flipped byte in the signed fields: still decodes, but no longer recovers to the signer.
        var tampered = raw
        tampered[5] ^= 0x01  // inside the nonce
        if let decoded = try? SignedTransaction(raw: tampered) {
            #expect((try? decoded.sender()) != Self.key.address)
        }
    }

    @Test func priorityFeeAboveMaxFeeIsRefused() {
        var transaction = Self.transfer(nonce: 1)
        transaction.maxPriorityFeePerGas = transaction.maxFeePerGas + 1
        #expect(
            ethereumError { _ = try transaction.signed(with: Self.key) }
                == .invalidTransaction("max priority fee 2000000001 wei exceeds max fee 2000000000 wei per gas"))
    }

    /// The chain id is signed: the same transaction under another chain ID has another hash (EIP-155 replay protection).
    @Test func chainIDIsPartOfTheSigningHash() {
        #expect(Self.docs(chainID: 1337).signingHash != Self.docs(chainID: 1900).signingHash)
    }
}
