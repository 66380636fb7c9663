import Foundation
import IssuerHTTP
import Testing

/// The duplicate-key check run on every JSON request body, on its own.
@Suite struct StrictJSONTests {
    func refusal(_ text: String) -> StrictJSON.Failure? {
        do {
            try StrictJSON.check(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func wellFormedDocumentsPass() {
        for text in [
            #"{}"#, #"[]"#, #"1"#, #"-0.5e+3"#, #""x""#, #"null"#, #" { "a" : [ true , false , null , {} , [] ] } "#,
            #"{"a":"}\"{","b":"\\"}"#,  // braces and quotes inside strings are not structure
            #"{"a":"b","c":"b"}"#,  // equal values are fine
            #"[{"a":1},{"a":1}]"#, #"{"a":{"a":{"a":1}}}"#,  // the same key in different objects
            #"{"a":1,"A":2,"a ":3}"#, #"{"\u00e9":1,"\u00e8":2}"#,
        ] {
            #expect(refusal(text) == nil, "\(text)")
        }
    }

    @Test func duplicatesAreFoundAtAnyDepthAfterUnescaping() {
        #expect(refusal(#"{"amount":1,"amount":100000000}"#) == .duplicateKey("amount", path: "$"))
        #expect(refusal(#"{"a":"x","\u0061":"y"}"#) == .duplicateKey("a", path: "$"))
        #expect(refusal(#"{"\/":1,"/":2}"#) == .duplicateKey("/", path: "$"))
        #expect(refusal(#"{"k":[1,{"x":{"y":1,"y":2}}]}"#) == .duplicateKey("y", path: "$.k[1].x"))
        // UTF-8 and its surrogate-pair escape are one key.
        #expect(refusal(#"{"😀":1,"\ud83d\ude00":2}"#) == .duplicateKey("😀", path: "$"))
        // Canonically equivalent keys are one key to the decoder (Swift string equality).
        #expect(refusal("{\"\u{e9}\":1,\"e\\u0301\":2}") != nil)
        // The first object's keys do not leak into its sibling, nor a child's into its parent.
        #expect(refusal(#"{"a":{"b":1},"b":2}"#) == nil)
    }

    @Test func deepNestingIsRefusedWithoutRecursion() {
        let depth = 200_000
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(refusal(deep) == .tooDeep(limit: StrictJSON.defaultMaxDepth))
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(refusal(objects) == .tooDeep(limit: StrictJSON.defaultMaxDepth))
        let fits =
            String(repeating: "[", count: StrictJSON.defaultMaxDepth) + String(repeating: "]", count: StrictJSON.defaultMaxDepth)
        #expect(refusal(fits) == nil)
    }

    @Test func malformedJSONIsRefused() {
        for text in [
            "", "{", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1,]", #"{"a":1}x"#, #"{a:1}"#, #""\x""#, #""\u12""#,
            #"{"\ud800":1}"#, #""\udc00""#, "01", "1.", "-", "tru", "\"a\u{01}\"", #"{"a":1 "b":2}"#,
        ] {
            guard case .invalid = refusal(text) else {
                Issue.record("accepted: \(text)")
                continue
            }
        }
        // Invalid UTF-8 in a key.
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.check([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    }

    /// Many keys in one object: one hash insert each (a quadratic check would take minutes here).
    @Test func manyKeysInOneObject() {
        let keys = (0..<50_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(refusal("{\(keys)}") == nil)
        #expect(refusal("{\(keys),\"k49999\":0}") == .duplicateKey("k49999", path: "$"))
    }
}
