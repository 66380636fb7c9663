import Foundation

/// Which backup passphrases are refused, and why (the reason is shown to the user).
///
/// A backup leaves the device, so it can be attacked offline at leisure; scrypt slows each
/// guess, but cannot save a passphrase from a short list. The rule, checked in this order:
/// 1. at least 12 characters;
/// 2. at least 6 different characters (refuses "aaaaaaaaaaaa", "abababababab", "121212121212");
/// 3. under 20 characters it must mix at least two kinds: letters, digits, spaces or symbols
///    (a long all-letters passphrase of several words is fine);
/// 4. not a common password or keyboard run, however padded with digits, symbols or case
///    ("Password2024!", "qwertyuiop12");
/// 5. not the account email, its name part, or the account password (`OW_PASSWORD`).
///
/// One rule for every client: the command line's `wallet backup` and the app's Settings.
public enum PassphrasePolicy {
    public static let minimumLength = 12
    public static let minimumDistinct = 6
    public static let mixedBelow = 20

    /// Lower-cased letters-only forms of the most common passwords and keyboard runs.
    public static let common: Set<String> = [
        "password", "passphrase", "passwort", "motdepasse", "qwerty", "qwertyuiop", "qwertz", "azerty", "asdf", "asdfgh",
        "asdfghjkl", "zxcvbn", "zxcvbnm", "letmein", "iloveyou", "admin", "administrator", "welcome", "monkey", "dragon",
        "football", "baseball", "sunshine", "princess", "master", "shadow", "superman", "trustno", "abc", "abcdef",
        "abcdefgh", "abcdefghijkl", "secret", "wallet", "offlinewallet", "backup", "mybackup", "changeme", "default",
        "login", "hello", "freedom", "whatever", "starwars", "pokemon", "qazwsx", "bitcoin", "money",
    ]

    /// Why `passphrase` is too weak, or nil when it is acceptable.
    public static func weakness(_ passphrase: String, email: String? = nil, accountPassword: String? = nil) -> String? {
        let characters = Array(passphrase)
        if characters.count < minimumLength {
            return "it has \(characters.count) characters; use at least \(minimumLength) (several words are easiest to remember)"
        }
        if Set(characters).count < minimumDistinct {
            return
                "it repeats too few characters (\(Set(characters).count) different); use at least \(minimumDistinct) different ones"
        }
        let kinds = [
            characters.contains { $0.isLetter }, characters.contains { $0.isNumber },
            characters.contains { !$0.isLetter && !$0.isNumber },
        ].filter { $0 }.count
        if characters.count < mixedBelow, kinds < 2 {
            return "under \(mixedBelow) characters it must mix letters with digits, spaces or symbols"
        }
        let lowered = passphrase.lowercased()
        let letters = String(lowered.filter(\.isLetter))
        let digits = String(lowered.filter(\.isNumber))
        if common.contains(letters) || (letters.isEmpty && isRun(digits)) || isRun(letters) {
            return "it is a common password or keyboard pattern with a few characters added"
        }
        if let email, !email.isEmpty {
            let name = email.lowercased().split(separator: "@").first.map(String.init) ?? ""
            if lowered.contains(email.lowercased()) || (name.count >= 4 && letters == name.filter(\.isLetter)) {
                return "it is made from the account email"
            }
        }
        if let accountPassword, !accountPassword.isEmpty, passphrase == accountPassword {
            return "it is the account password; a backup needs its own passphrase"
        }
        return nil
    }

    /// A run of consecutive characters, ascending or descending ("123456789012", "abcdefghijkl").
    public static func isRun(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        guard scalars.count >= 4 else { return false }
        let steps = zip(scalars, scalars.dropFirst()).map { Int64($1) - Int64($0) }
        // Digits wrap (…8 9 0 1…), as on a keyboard.
        return steps.allSatisfy { $0 == 1 || $0 == -9 } || steps.allSatisfy { $0 == -1 || $0 == 9 }
    }
}
