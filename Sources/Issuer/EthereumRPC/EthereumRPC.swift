// A JSON-RPC client for any standard Ethereum node.
