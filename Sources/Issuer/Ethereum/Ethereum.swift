// Ethereum primitives: Keccak-256, RLP, ABI, addresses, EIP-1559 transactions, secp256k1 keys.
