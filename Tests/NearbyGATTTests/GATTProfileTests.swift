import NearbyGATT
import OfflineNotes
import Testing
import WalletFlows
import WalletTestSupport

@Suite("GATT profile: session service hint and advertised name")
struct GATTProfileTests {
    @Test func aSessionServiceRoundTripsThroughTheHint() throws {
        for _ in 0..<50 {
            let service = GATTProfile.makeSessionService()
            let hint = GATTProfile.hint(for: service)
            #expect(hint.kindByte == 0x02 && hint.value.count == 16)
            #expect(GATTProfile.sessionService(in: hint) == service)
            // RFC 4122 version 4: version nibble 4, variant bits 10.
            #expect(service.bytes[6] >> 4 == 4 && service.bytes[8] >> 6 == 2)
            // The canonical upper-case 8-4-4-4-12 form CBUUID(string:) takes, and back.
            let text = service.string
            #expect(text.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
            #expect(text == text.uppercased())
            #expect(GATTUUID(string: text) == service)
            #expect(GATTUUID(string: text.lowercased()) == service)
        }
        #expect(GATTProfile.discoveryService.string == "6E0F7A52-3C1B-4D8E-9A47-2B5D8C3E1F60")
        #expect(GATTProfile.inboxCharacteristic.string == "6E0F7A53-3C1B-4D8E-9A47-2B5D8C3E1F60")
        #expect(GATTProfile.outboxCharacteristic.string == "6E0F7A54-3C1B-4D8E-9A47-2B5D8C3E1F60")
    }

    @Test func aWrongHintIsIgnored() throws {
        for length in [0, 2, 15, 17, 32] {
            #expect(
                GATTProfile.sessionService(in: TransportHint(kind: .bluetooth, value: [UInt8](repeating: 1, count: length)))
                    == nil)
        }
        let uuidBytes = [UInt8](repeating: 0xAB, count: 16)
        #expect(GATTProfile.sessionService(in: TransportHint(kind: .tcp, value: uuidBytes)) == nil)
        #expect(GATTProfile.sessionService(in: TransportHint(kind: .qr, value: uuidBytes)) == nil)
        for text in [
            "", "6E0F7A52", "6E0F7A523C1B4D8E9A472B5D8C3E1F60", "6E0F7A52-3C1B-4D8E-9A47-2B5D8C3E1F6G",
            "6E0F7A52-3C1B-4D8E-9A47-2B5D8C3E1F6",
            "180D", "6E0F7A52-3C1B-4D8E-9A472-B5D8C3E1F60",
        ] {
            #expect(GATTUUID(string: text) == nil, "\(text)")
        }

        // A request whose first Bluetooth hint is malformed: the well-formed one is used.
        let pair = try WalletPair()
        let service = GATTProfile.makeSessionService()
        let request = try pair.payee.createRequest(
            amount: 100,
            hints: [.tcp("127.0.0.1:9"), TransportHint(kind: .bluetooth, value: [1, 2, 3]), GATTProfile.hint(for: service)])
        #expect(GATTProfile.sessionService(in: try PaymentRequest(decoding: request.encoded)) == service)
        let without = try pair.payee.createRequest(amount: 100, hints: [TransportHint(kind: .bluetooth, value: [1, 2, 3])])
        #expect(GATTProfile.sessionService(in: without) == nil)
    }

    @Test func theAdvertisedNameRoundTripsAndMatchesTheKey() throws {
        let pair = try WalletPair()
        let keyID = pair.payee.publicKey.keyID.hex
        let name = try #require(GATTProfile.localName(keyIDHex: keyID, displayName: "Bob's iPhone"))
        #expect(name == "\(keyID.prefix(8)) Bob's iPhone")
        let read = try #require(GATTProfile.advertisedName(name))
        #expect(read.displayName == "Bob's iPhone")
        #expect(read.keyID == String(keyID.prefix(8)))
        // The key id a payer reads off the advertisement passes the key-id rule for this payee
        // and not for another wallet.
        #expect(NearbyPayFlow.payee(pair.payee.publicKey, matchesText: read.keyID))
        #expect(!NearbyPayFlow.payee(pair.payer.publicKey, matchesText: read.keyID))

        // No display name.
        let bare = try #require(GATTProfile.localName(keyIDHex: keyID, displayName: "  "))
        #expect(bare == "\(keyID.prefix(8))")
        #expect(GATTProfile.advertisedName(bare) == GATTProfile.AdvertisedName(keyID: String(keyID.prefix(8)), displayName: ""))
    }

    @Test func aLongNameIsCutToFitTheAdvertisement() throws {
        let key = "0123456789abcdef"
        let long = try #require(GATTProfile.localName(keyIDHex: key, displayName: "Bartholomew's very long iPhone name"))
        #expect(long.utf8.count <= GATTProfile.maximumLocalNameLength)
        #expect(long == "01234567 Bartholomew's very l")
        // Cut at a character boundary, never inside one (each emoji is 4 UTF-8 bytes).
        let emoji = try #require(GATTProfile.localName(keyIDHex: key, displayName: "😀😀😀😀😀"))
        #expect(emoji == "01234567 😀😀😀😀😀")
        #expect(GATTProfile.advertisedName(emoji)?.displayName == "😀😀😀😀😀")
        // Control characters do not reach the radio.
        #expect(GATTProfile.localName(keyIDHex: key, displayName: "Bob\n2") == "01234567 Bob 2")
        // Upper-case key ids are advertised lower-case.
        #expect(GATTProfile.localName(keyIDHex: "ABCDEF0123", displayName: "") == "abcdef01")
    }

    @Test func malformedNamesAreRefused() {
        #expect(GATTProfile.localName(keyIDHex: "0123456", displayName: "Bob") == nil)
        #expect(GATTProfile.localName(keyIDHex: "0123456z9", displayName: "Bob") == nil)
        #expect(GATTProfile.localName(keyIDHex: "０１２３４５６７", displayName: "Bob") == nil, "fullwidth digits are not a key id")
        for name in [
            "", "0123456", "012345678", "0123456z Bob", "01234567Bob", "OW1 01234567 Bob", " 01234567 Bob", "Bob's iPhone",
            "０１２３４５６７", "01234567 this name is much too long",
        ] {
            #expect(GATTProfile.advertisedName(name) == nil, "\(name) was read")
        }
        #expect(GATTProfile.advertisedName("0123ABCD Bob")?.keyID == "0123abcd")
    }

    /// iOS promises only 10 bytes of scan response for the local name beside a 128-bit UUID
    /// (8 after the record's length and type): whatever it cuts, the key id survives and the
    /// name reads as what was left of it.
    @Test func aNameTheSystemCutsShortStillNamesThePayee() throws {
        let name = try #require(GATTProfile.localName(keyIDHex: "0123456789abcdef", displayName: "Bob's iPhone"))
        #expect(GATTProfile.guaranteedLocalNameLength == GATTProfile.localNameKeyIDLength)
        for cut in GATTProfile.guaranteedLocalNameLength...name.utf8.count {
            let shortened = String(decoding: Array(name.utf8.prefix(cut)), as: UTF8.self)
            let read = try #require(GATTProfile.advertisedName(shortened), "cut to \(cut) bytes")
            #expect(read.keyID == "01234567")
            #expect("Bob's iPhone".hasPrefix(read.displayName))
        }
    }
}
