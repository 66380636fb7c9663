#!/usr/bin/env python3
"""Deploys the test Token and the Escrow on a local EVM node (scripts/evm/node.py) from
eth-tester's funded keys and writes what the tests need:

- key 0 = owner (deploys both contracts, owns them, mints), key 1 = escrow operator,
  keys 2 … 5 = users, each minted --mint token units;
- key files in --keys-dir: owner.key, operator.key, user1.key … user4.key (64 hex + newline,
  mode 0600);
- --env-file: OW_EVM_TOKEN, OW_EVM_ESCROW, OW_EVM_START_BLOCK (the escrow's deployment
  block: no deposit can be older), OW_EVM_CHAIN_ID as shell assignments.

    python3 scripts/evm/deploy.py --rpc http://127.0.0.1:8545 --keys-dir K --env-file E
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evmlib import Signer, connect, contract, funded_keys, write_key_file  # noqa: E402

KEY_NAMES = ["owner", "operator", "user1", "user2", "user3", "user4"]


def deploy(rpc: str, name: str, symbol: str, decimals: int, daily_cap: int, mint: int) -> dict:
    w3 = connect(rpc)
    keys = funded_keys()
    owner = Signer(w3, keys[0])
    operator = Signer(w3, keys[1])
    token_address = owner.deploy("Token", name, symbol, decimals)
    escrow_address = owner.deploy("Escrow", token_address, operator.address, daily_cap)
    start_block = w3.eth.block_number  # automine: the escrow's block is the latest
    token = contract(w3, "Token", token_address)
    for key in keys[2:6]:
        user = Signer(w3, key)
        receipt = owner.call(token.functions.mint(user.address, mint))
        if receipt["status"] != 1:
            raise SystemExit(f"minting to {user.address} failed")
    return {
        "token": token_address,
        "escrow": escrow_address,
        "start_block": start_block,
        "chain_id": w3.eth.chain_id,
        "keys": dict(zip(KEY_NAMES, keys[:6])),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Deploy Token + Escrow on a local EVM node.")
    parser.add_argument("--rpc", required=True)
    parser.add_argument("--keys-dir", required=True, type=Path)
    parser.add_argument("--env-file", required=True, type=Path)
    parser.add_argument("--name", default="Offline Euro")
    parser.add_argument("--symbol", default="OEUR")
    parser.add_argument("--decimals", type=int, default=2)
    parser.add_argument("--daily-cap", type=int, default=10**12, help="token units per UTC day")
    parser.add_argument("--mint", type=int, default=100_000_000, help="token units per user (default 1,000,000.00)")
    args = parser.parse_args(argv)

    result = deploy(args.rpc, args.name, args.symbol, args.decimals, args.daily_cap, args.mint)
    args.keys_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name, key in result["keys"].items():
        write_key_file(args.keys_dir / f"{name}.key", key)
    args.env_file.write_text(
        f"OW_EVM_TOKEN={result['token']}\n"
        f"OW_EVM_ESCROW={result['escrow']}\n"
        f"OW_EVM_START_BLOCK={result['start_block']}\n"
        f"OW_EVM_CHAIN_ID={result['chain_id']}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
