import Foundation

/// An error in the person's language: what went wrong and what to do.
enum ErrorText {
    /// The sentence a screen shows for `error`.
    static func message(_ error: any Error) -> String {
        "\(error)"
    }
}
