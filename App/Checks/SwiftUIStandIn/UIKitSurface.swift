// SwiftUI stand-in (never shipped): the two UIKit value types SwiftUI's text-input modifiers
// take (`.keyboardType(.decimalPad)`, `.textContentType(.oneTimeCode)`). On iOS they come from
// UIKit, which `import SwiftUI` re-exports; here they are declared so those modifiers type-check.
// Nothing else of UIKit is declared: a view naming UIColor, UIImage, UIApplication... fails the
// check, because such code belongs in an adapter behind `#if canImport(UIKit)`.

public enum UIKeyboardType: Int, Sendable {
    case `default`
    case asciiCapable
    case numbersAndPunctuation
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case URL  // UIKit's spelling, used as `.keyboardType(.URL)`
    case numberPad
    case phonePad
    case namePhonePad
    case emailAddress
    case decimalPad
    case twitter
    case webSearch
    case asciiCapableNumberPad
}

public nonisolated struct UITextContentType: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let name = UITextContentType(rawValue: "name")
    public static let givenName = UITextContentType(rawValue: "given-name")
    public static let familyName = UITextContentType(rawValue: "family-name")
    public static let nickname = UITextContentType(rawValue: "nickname")
    public static let organizationName = UITextContentType(rawValue: "organization")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let URL = UITextContentType(rawValue: "url")
    public static let emailAddress = UITextContentType(rawValue: "email")
    public static let telephoneNumber = UITextContentType(rawValue: "tel")
    public static let username = UITextContentType(rawValue: "username")
    public static let password = UITextContentType(rawValue: "password")
    public static let newPassword = UITextContentType(rawValue: "new-password")
    public static let oneTimeCode = UITextContentType(rawValue: "one-time-code")
}
