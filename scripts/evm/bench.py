#!/usr/bin/env python3
"""Throughput of the local EVM node for the closing note (a timing script, not a test): deposits
(approve + deposit, two transactions) and payouts (one transaction), one at a time over HTTP
JSON-RPC, each sent raw and its receipt read before the next — what a client that waits for
each receipt sees. Run it next to a node set up by deploy.py:

    scripts/with-evm python3 scripts/evm/bench.py [--count 100]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evmlib import Signer, connect, contract, funded_keys  # noqa: E402


class Sender:
    """Sends one signed transaction and reads its receipt; the nonce is counted locally and the
    fee is fixed (1 gwei tip, 3 gwei cap; the node's base fee is at most 1 gwei), so each
    transaction costs two RPCs: eth_sendRawTransaction and eth_getTransactionReceipt."""

    def __init__(self, signer: Signer):
        self.signer = signer
        self.nonce = signer.w3.eth.get_transaction_count(signer.address, "pending")

    def send(self, function) -> None:
        tx = {
            "type": 2, "chainId": self.signer.chain_id, "nonce": self.nonce, "to": function.address,
            "maxPriorityFeePerGas": 10**9, "maxFeePerGas": 3 * 10**9, "gas": 200_000, "value": 0,
            "data": function._encode_transaction_data(),
        }
        signed = self.signer.account.sign_transaction(tx)
        w3 = self.signer.w3
        tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
        receipt = w3.eth.get_transaction_receipt(tx_hash)  # automine: mined already
        if receipt["status"] != 1:
            raise SystemExit(f"{function.fn_name} failed in the benchmark")
        self.nonce += 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Deposits/s and payouts/s on the local EVM node.")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--rpc", default=os.environ.get("OW_EVM_RPC"))
    parser.add_argument("--escrow", default=os.environ.get("OW_EVM_ESCROW"))
    parser.add_argument("--token", default=os.environ.get("OW_EVM_TOKEN"))
    args = parser.parse_args(argv)
    if not (args.rpc and args.escrow and args.token):
        parser.error("run under scripts/with-evm (or give --rpc, --escrow, --token)")

    w3 = connect(args.rpc)
    keys = funded_keys()
    escrow = contract(w3, "Escrow", args.escrow)
    token = contract(w3, "Token", args.token)
    user = Sender(Signer(w3, keys[2]))
    operator = Sender(Signer(w3, keys[1]))
    payee = Signer(w3, keys[3]).address

    start = time.perf_counter()
    for i in range(args.count):
        user.send(token.functions.approve(escrow.address, 100))
        user.send(escrow.functions.deposit(100, i.to_bytes(32, "big")))
    deposit_seconds = time.perf_counter() - start

    start = time.perf_counter()
    for i in range(args.count):
        operator.send(escrow.functions.payout(payee, 100, (10**6 + i).to_bytes(32, "big")))
    payout_seconds = time.perf_counter() - start

    print(f"local EVM node (eth-tester py-evm over HTTP JSON-RPC), {args.count} each, one at a time:")
    print(f"  deposits (approve + deposit): {args.count / deposit_seconds:.1f}/s"
          f" ({deposit_seconds / args.count * 1000:.1f} ms each)")
    print(f"  payouts:                      {args.count / payout_seconds:.1f}/s"
          f" ({payout_seconds / args.count * 1000:.1f} ms each)")
    print(f"  blocks now: {w3.eth.block_number}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
