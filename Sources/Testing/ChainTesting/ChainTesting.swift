// Test harness for the local chain.
