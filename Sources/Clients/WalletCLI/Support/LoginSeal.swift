import Foundation
import Synchronization
import WalletCore
import WalletFlows

/// The token seal of the wallet this process opened (one wallet per process): `config.json`
/// keeps the login sealed under it when the key file is encrypted (`LoginTokenSeal` says why
/// and how). Commands that open or create a wallet adopt it; the settings store uses it.
enum LoginSeal {
    private static let current = Mutex<LoginTokenSeal?>(nil)

    /// Remembers `wallet`'s token seal for the settings store.
    static func adopt(_ wallet: Wallet, directory: String) {
        let seal = LoginTokenSeal(wallet: wallet, directory: directory)
        current.withLock { $0 = seal }
    }

    static var seal: LoginTokenSeal? { current.withLock { $0 } }
}
