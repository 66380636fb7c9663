import Testing

@Suite struct EthereumPlaceholder {}
