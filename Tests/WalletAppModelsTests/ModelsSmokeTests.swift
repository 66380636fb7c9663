import Testing
import WalletAppModels

@Suite struct AppModelsModuleTests {
    @Test func theModuleLinks() { _ = WalletAppModels.self }
}
