// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// Security's key-type constants are CFStrings: `as String` inside a case is a cast pattern, not
// a conversion (the mistake PinnedServerTrust once had).
// expect: expression pattern of type 'CFString' cannot match values of type 'String'
import Security

func plantedKeyHeaderLength(type: String) -> Int {
    switch type {
    case kSecAttrKeyTypeECSECPrimeRandom as String: return 26
    default: return 0
    }
}
