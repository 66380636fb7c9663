"""Shared helpers for the local-EVM scripts (deploy.py, the contract tests, bench.py): the
committed contract artefacts, eth-tester's funded keys, and a signer that sends EIP-1559
transactions over the node's JSON-RPC (web3's HTTPProvider: this exercises the node's front the
same way the wallet server's client does)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from eth_account import Account
from eth_tester.backends.pyevm.main import get_default_account_keys
from web3 import Web3

ROOT = Path(__file__).resolve().parents[2]
#: The compiled contracts; OW_CONTRACTS_BUILD points elsewhere (e.g. a mutated build when
#: checking that the tests catch a removed rule).
BUILD = Path(os.environ.get("OW_CONTRACTS_BUILD") or ROOT / "contracts" / "build")

#: Gas for every transaction these scripts send: a fixed limit (no estimate) lets a call the
#: contract refuses be mined as a revert (status 0), which is what the tests look at.
GAS_LIMIT = 3_000_000
#: The priority fee the scripts offer (the node's eth_maxPriorityFeePerGas).
PRIORITY_FEE = 10**9


def funded_keys() -> list[bytes]:
    """The private keys eth-tester funds at genesis (1 … 10 as 32-byte big-endian numbers)."""
    return [key.to_bytes() for key in get_default_account_keys()]


def artefact(name: str) -> tuple[list, str]:
    """(abi, creation bytecode hex) of contracts/build/<name>."""
    abi = json.loads((BUILD / f"{name}.abi.json").read_text())
    bytecode = (BUILD / f"{name}.bin").read_text().strip()
    return abi, bytecode


def connect(rpc: str) -> Web3:
    w3 = Web3(Web3.HTTPProvider(rpc, request_kwargs={"timeout": 60}))
    if not w3.is_connected():
        raise SystemExit(f"no Ethereum JSON-RPC node answers at {rpc}")
    return w3


class Signer:
    """One key: signs EIP-1559 transactions with the next nonce and sends them raw."""

    def __init__(self, w3: Web3, key: bytes):
        self.w3 = w3
        self.account = Account.from_key(key)
        self.address = self.account.address
        self.key = key
        self.chain_id = w3.eth.chain_id

    def transaction(self, to: str | None, data: str | bytes, value: int = 0, gas: int = GAS_LIMIT,
                    nonce: int | None = None) -> tuple[bytes, bytes]:
        """(raw signed transaction, hash) without sending it."""
        if nonce is None:
            nonce = self.w3.eth.get_transaction_count(self.address, "pending")
        base_fee = self.w3.eth.get_block("pending")["baseFeePerGas"]
        tx = {
            "type": 2,
            "chainId": self.chain_id,
            "nonce": nonce,
            "maxPriorityFeePerGas": PRIORITY_FEE,
            "maxFeePerGas": 2 * base_fee + PRIORITY_FEE,
            "gas": gas,
            "value": value,
            "data": data,
        }
        if to is not None:
            tx["to"] = to
        signed = self.account.sign_transaction(tx)
        return bytes(signed.raw_transaction), bytes(signed.hash)

    def send(self, to: str | None, data: str | bytes, value: int = 0, gas: int = GAS_LIMIT, wait: bool = True):
        """Sends and (by default) waits for the receipt, which it returns (status 0 included)."""
        raw, _ = self.transaction(to, data, value, gas)
        tx_hash = self.w3.eth.send_raw_transaction(raw)
        if not wait:
            return tx_hash
        return self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=60, poll_latency=0.01)

    def call(self, function, wait: bool = True):
        """Sends a contract function call (web3 ContractFunction) from this key."""
        return self.send(function.address, function._encode_transaction_data(), wait=wait)

    def deploy(self, name: str, *arguments) -> str:
        abi, bytecode = artefact(name)
        contract = self.w3.eth.contract(abi=abi, bytecode=bytecode)
        data = contract.constructor(*arguments).data_in_transaction
        receipt = self.send(None, data)
        if receipt["status"] != 1:
            raise SystemExit(f"deploying {name} failed (receipt status {receipt['status']})")
        return receipt["contractAddress"]


def contract(w3: Web3, name: str, address: str):
    abi, _ = artefact(name)
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=abi)


def write_key_file(path: Path, key: bytes) -> None:
    """64 hex characters and a newline, mode 0600 from the start (never briefly readable)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(key.hex() + "\n")
    os.chmod(path, 0o600)
