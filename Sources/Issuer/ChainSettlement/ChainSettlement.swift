// Settlement on an EVM chain: deposits, payouts, reconciliation.
