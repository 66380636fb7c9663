import Testing
import WalletFlows

@Suite struct FlowsModuleTests {
    @Test func theModuleLinks() { _ = WalletFlows.self }
}
