import Testing

@Suite struct ChainSettlementPlaceholder {}
