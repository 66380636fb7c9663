// `wallet-chain`: operator and test tool for the escrow (placeholder until built).
print("wallet-chain: not built yet")
