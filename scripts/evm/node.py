#!/usr/bin/env python3
"""A local Ethereum JSON-RPC node for tests and the demo: an HTTP front over eth-tester's py-evm
backend (a real EVM, Prague rules), with the standard methods the wallet server's EVM client
uses and anvil/hardhat-style test controls.

    python3 scripts/evm/node.py --port 0 --port-file /tmp/x/port

Standard methods (hex quantities, standard semantics): eth_chainId, net_version,
web3_clientVersion, eth_blockNumber, eth_getBlockByNumber, eth_getBlockByHash,
eth_getTransactionCount (latest|pending|…), eth_getBalance, eth_getCode, eth_accounts,
eth_sendRawTransaction, eth_getTransactionReceipt, eth_getTransactionByHash, eth_call,
eth_estimateGas, eth_getLogs, eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory.
Test controls: evm_mine [count], evm_snapshot → id, evm_revert id → bool,
evm_setAutomine bool, evm_increaseTime seconds.

How this node differs from a public network (the client must not rely on more):
- Automine (default): every accepted transaction is mined at once in its own block, so a
  receipt exists as soon as eth_sendRawTransaction answers. evm_setAutomine false keeps
  transactions in the pending block until evm_mine; "pending" state (nonce, balance) sees them.
- A transaction whose nonce is not the sender's next one is refused ("nonce too low" /
  "nonce too high"): there is no queue of future transactions. Sending a transaction the node
  already has (pending or mined) answers its hash, as geth's "already known" resubmission does.
- Block timestamps: max(now, parent + 1) when the block's first transaction arrives, so with more
  than one block a second the node's clock runs ahead of the wall clock; evm_increaseTime moves
  it forward by mining one empty block with the later timestamp (it cannot go back).
- Base fee starts at 1 gwei and follows EIP-1559 (mostly empty blocks: it falls 12.5 % a
  block, to 7 wei); eth_maxPriorityFeePerGas is a fixed 1 gwei; eth_gasPrice is the next
  block's base fee plus that. Any priority fee is accepted. Block gas limit ~30 M.
- No reorganisations; evm_revert to a snapshot removes every later block (and pending
  transactions), which a client sees like a reorganisation: receipts and logs of the removed
  blocks are gone and block numbers are reused by new blocks with other hashes.
- Chain id: eth-tester's 131277322940537 unless --chain-id is given. A transaction signed for
  another chain id (or without one) is refused, as geth does (py-evm would accept it).
- eth_call runs in a block after the one asked for (number + 1, timestamp max(now, parent + 1)).
See scripts/evm/README.md.
- Accounts funded at genesis (1,000,000 ether each): private keys 1 … 10 (0x00…01 … 0x00…0a).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import rlp

from eth._utils.address import generate_contract_address
from eth.exceptions import Revert as EVMRevert
from eth.exceptions import VMError
from eth.vm.spoof import SpoofTransaction
from eth_hash.auto import keccak
from eth_tester import PyEVMBackend
from eth_utils import ValidationError as EthValidationError
from eth_utils import to_checksum_address

LOG = logging.getLogger("evm-node")

#: eth-tester's chain id (a class attribute of its py-evm `Chain` class).
DEFAULT_CHAIN_ID = 131277322940537
#: What eth_maxPriorityFeePerGas answers (web3's in-process tester provider answers the same).
PRIORITY_FEE = 10**9
#: Selector of Solidity/Vyper's `Error(string)` revert reason.
ERROR_STRING_SELECTOR = bytes.fromhex("08c379a0")


class RPCError(Exception):
    """A JSON-RPC error answer: {code, message[, data]}."""

    def __init__(self, code: int, message: str, data: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def as_json(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def invalid_params(message: str) -> RPCError:
    return RPCError(-32602, f"invalid argument: {message}")


# ---- wire formats -------------------------------------------------------------------------

def qty(value: int) -> str:
    return hex(value)


def data(value: bytes) -> str:
    return "0x" + bytes(value).hex()


def address_text(value: bytes) -> str | None:
    # py-evm uses b"" for "no address" (a contract creation's `to`).
    return to_checksum_address(value) if value else None


def parse_qty(value, name: str = "quantity") -> int:
    """A JSON-RPC quantity: "0x…" hex without leading zeros is standard; an int is tolerated."""
    if isinstance(value, bool):
        raise invalid_params(f"{name} must be a hex quantity")
    if isinstance(value, int):
        if value < 0:
            raise invalid_params(f"{name} must not be negative")
        return value
    if isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) > 2:
        try:
            return int(value, 16)
        except ValueError:
            pass
    raise invalid_params(f"{name} must be a hex quantity like 0x1a, got {value!r}")


def parse_data(value, name: str = "data", length: int | None = None) -> bytes:
    if not isinstance(value, str) or value[:2] not in ("0x", "0X"):
        raise invalid_params(f"{name} must be 0x-prefixed hex, got {value!r}")
    try:
        raw = bytes.fromhex(value[2:])
    except ValueError:
        raise invalid_params(f"{name} is not valid hex: {value!r}") from None
    if length is not None and len(raw) != length:
        raise invalid_params(f"{name} must be {length} bytes, got {len(raw)}")
    return raw


def parse_address(value, name: str = "address") -> bytes:
    return parse_data(value, name, 20)


def param(params: list, index: int, default=None, required: bool = False):
    if index < len(params):
        return params[index]
    if required:
        raise invalid_params(f"missing value for required argument {index}")
    return default


def error_reason(revert_data: bytes) -> str | None:
    """The string of an `Error(string)` revert, or None for any other revert data."""
    if revert_data[:4] != ERROR_STRING_SELECTOR or len(revert_data) < 68:
        return None
    try:
        offset = int.from_bytes(revert_data[4:36], "big")
        length = int.from_bytes(revert_data[4 + offset : 36 + offset], "big")
        return revert_data[36 + offset : 36 + offset + length].decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


# ---- the node -----------------------------------------------------------------------------

class Node:
    """The EVM (py-evm's `Chain` object) and the JSON-RPC methods over it. Every call holds
    `lock`: eth-tester and py-evm are not thread-safe, and the HTTP server answers on one thread
    per connection."""

    def __init__(self, chain_id: int | None = None):
        self.lock = threading.Lock()
        self.backend = PyEVMBackend()
        if chain_id is not None and chain_id != DEFAULT_CHAIN_ID:
            self._set_chain_id(chain_id)
        # Only eth-tester's py-evm backend is used (its EVM, keys, mining, snapshots), not its
        # EthereumTester front: that one keeps its own "pending" list with automine off and
        # checks each transaction against the latest block only (a sender's second pending
        # transaction fails). This node applies transactions to py-evm's pending block instead
        # and mines it itself.
        self.automine = True
        self.snapshots: dict[int, bytes] = {}
        # Transaction hash → sender. py-evm recovers the sender from the signature each time a
        # transaction is read back from its database, in pure Python (~7 ms); receipts and
        # transactions answer from here instead. A hash fixes its sender, so entries never go
        # stale (a revert leaves harmless extras).
        self.senders: dict[bytes, bytes] = {}
        self.next_snapshot = 1
        self.methods = {
            "web3_clientVersion": lambda p: "offline-wallet-evm/eth-tester-py-evm",
            "net_version": lambda p: str(self.evm.chain_id),
            "eth_chainId": lambda p: qty(self.evm.chain_id),
            "eth_accounts": self.accounts,
            "eth_blockNumber": lambda p: qty(self.evm.get_block().number - 1),
            "eth_getBlockByNumber": self.get_block_by_number,
            "eth_getBlockByHash": self.get_block_by_hash,
            "eth_getTransactionCount": self.get_transaction_count,
            "eth_getBalance": self.get_balance,
            "eth_getCode": self.get_code,
            "eth_sendRawTransaction": self.send_raw_transaction,
            "eth_getTransactionReceipt": self.get_transaction_receipt,
            "eth_getTransactionByHash": self.get_transaction_by_hash,
            "eth_call": self.call,
            "eth_estimateGas": self.estimate_gas,
            "eth_getLogs": self.get_logs,
            "eth_gasPrice": lambda p: qty(self.evm.header.base_fee_per_gas + PRIORITY_FEE),
            "eth_maxPriorityFeePerGas": lambda p: qty(PRIORITY_FEE),
            "eth_feeHistory": self.fee_history,
            "evm_mine": self.mine,
            "evm_snapshot": self.snapshot,
            "evm_revert": self.revert,
            "evm_setAutomine": self.set_automine,
            "evm_increaseTime": self.increase_time,
        }

    def _set_chain_id(self, chain_id: int) -> None:
        # eth-tester fixes the id as a class attribute of the py-evm `Chain` class it defines; the
        # class is private to this backend instance's setup, so setting it here changes nothing
        # else. New `Chain` objects (e.g. a revert to genesis) read the class attribute; the
        # existing one also caches it in its `ChainContext`.
        from eth.vm.chain_context import ChainContext

        type(self.backend.chain).chain_id = chain_id
        self.backend.chain.chain_id = chain_id
        self.backend.chain.chain_context = ChainContext(chain_id)

    @property
    def evm(self):
        # py-evm's `Chain` object (`backend.chain` is eth-tester's name for it). The backend
        # replaces it on some reverts; always read it from there.
        return self.backend.chain

    @property
    def private_keys(self) -> list[bytes]:
        return [key.to_bytes() for key in self.backend.account_keys]

    # ---- dispatch

    def handle(self, request) -> dict | None:
        """One JSON-RPC request object → its response object (None for a notification)."""
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(
            request.get("method"), str
        ):
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
        request_id = request.get("id")
        method = request["method"]
        params = request.get("params", [])
        if not isinstance(params, list):
            params = [params]
        try:
            handler = self.methods.get(method)
            if handler is None:
                raise RPCError(-32601, f"the method {method} does not exist/is not available")
            with self.lock:
                result = handler(params)
            response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except RPCError as error:
            response = {"jsonrpc": "2.0", "id": request_id, "error": error.as_json()}
        except Exception as error:  # noqa: BLE001 — a bug or an eth-tester surprise: say what
            LOG.exception("%s failed", method)
            response = {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": -32603, "message": f"internal error: {type(error).__name__}: {error}"},
            }
        return None if "id" not in request else response

    # ---- blocks

    def _block(self, tag):
        """The block `tag` names, or None if it does not exist (yet)."""
        pending = self.evm.get_block()
        if tag in (None, "latest", "safe", "finalized"):
            number = pending.number - 1
        elif tag == "earliest":
            number = 0
        elif tag == "pending":
            return pending
        elif isinstance(tag, dict) and "blockNumber" in tag:
            number = parse_qty(tag["blockNumber"], "blockNumber")
        elif isinstance(tag, dict) and "blockHash" in tag:
            return self._block_by_hash(parse_data(tag["blockHash"], "blockHash", 32))
        else:
            number = parse_qty(tag, "block")
        if number >= pending.number:
            return None
        return self.evm.get_canonical_block_by_number(number)

    def _block_by_hash(self, block_hash: bytes):
        try:
            block = self.evm.get_block_by_hash(block_hash)
        except Exception:  # noqa: BLE001 — py-evm's HeaderNotFound / BlockNotFound
            return None
        if block.number >= self.evm.get_block().number:
            return None
        if self.evm.get_canonical_block_by_number(block.number).hash != block.hash:
            return None  # reverted away
        return block

    def _state_block(self, tag):
        block = self._block(tag)
        if block is None:
            raise RPCError(-32000, "header not found")
        return block

    def _vm(self, tag):
        return self.evm.get_vm(at_header=self._state_block(tag).header)

    def _block_json(self, block, full: bool) -> dict:
        header = block.header
        is_pending = block.number == self.evm.get_block().number
        if full:
            transactions = [self._transaction_json(block, tx, i, is_pending) for i, tx in enumerate(block.transactions)]
        else:
            transactions = [data(tx.hash) for tx in block.transactions]
        result = {
            "number": qty(header.block_number),
            "hash": None if is_pending else data(header.hash),
            "parentHash": data(header.parent_hash),
            "nonce": data(header.nonce),
            "sha3Uncles": data(header.uncles_hash),
            "logsBloom": data(header.bloom.to_bytes(256, "big")),
            "transactionsRoot": data(header.transaction_root),
            "stateRoot": data(header.state_root),
            "receiptsRoot": data(header.receipt_root),
            "miner": to_checksum_address(header.coinbase),
            "difficulty": qty(header.difficulty),
            "totalDifficulty": qty(header.difficulty),
            "extraData": data(header.extra_data),
            "size": qty(len(rlp.encode(block))),
            "gasLimit": qty(header.gas_limit),
            "gasUsed": qty(header.gas_used),
            "timestamp": qty(header.timestamp),
            "transactions": transactions,
            "uncles": [],
            "mixHash": data(header.mix_hash),
        }
        for name, field in (
            ("baseFeePerGas", "base_fee_per_gas"),
            ("withdrawalsRoot", "withdrawals_root"),
            ("blobGasUsed", "blob_gas_used"),
            ("excessBlobGas", "excess_blob_gas"),
            ("parentBeaconBlockRoot", "parent_beacon_block_root"),
            ("requestsHash", "requests_hash"),
        ):
            value = getattr(header, field, None)
            if value is not None:
                result[name] = qty(value) if isinstance(value, int) else data(value)
        if hasattr(header, "withdrawals_root"):
            result["withdrawals"] = []
        return result

    def get_block_by_number(self, params):
        block = self._block(param(params, 0, required=True))
        return None if block is None else self._block_json(block, bool(param(params, 1, False)))

    def get_block_by_hash(self, params):
        block = self._block_by_hash(parse_data(param(params, 0, required=True), "block hash", 32))
        return None if block is None else self._block_json(block, bool(param(params, 1, False)))

    # ---- accounts

    def accounts(self, params):
        return [to_checksum_address(key.public_key.to_canonical_address()) for key in self.backend.account_keys]

    def get_transaction_count(self, params):
        account = parse_address(param(params, 0, required=True))
        # "pending" is py-evm's pending block, which holds every accepted, unmined transaction.
        return qty(self._vm(param(params, 1, "latest")).state.get_nonce(account))

    def get_balance(self, params):
        account = parse_address(param(params, 0, required=True))
        return qty(self._vm(param(params, 1, "latest")).state.get_balance(account))

    def get_code(self, params):
        account = parse_address(param(params, 0, required=True))
        return data(self._vm(param(params, 1, "latest")).state.get_code(account))

    # ---- transactions

    def _find_transaction(self, tx_hash: bytes):
        """(block, transaction, index, is_pending) for a pending or canonical transaction, else
        None. py-evm's hash index may still point into blocks a revert removed: checked."""
        pending = self.evm.get_block()
        for index, tx in enumerate(pending.transactions):
            if tx.hash == tx_hash:
                return pending, tx, index, True
        try:
            number, index = self.evm.chaindb.get_transaction_index(tx_hash)
        except Exception:  # noqa: BLE001 — py-evm's TransactionNotFound
            return None
        if number >= pending.number:
            return None
        block = self.evm.get_canonical_block_by_number(number)
        if index < len(block.transactions) and block.transactions[index].hash == tx_hash:
            return block, block.transactions[index], index, False
        return None

    def _transaction_json(self, block, tx, index: int, is_pending: bool) -> dict:
        tx_type = getattr(tx, "type_id", None)
        result = {
            "type": qty(tx_type or 0),
            "hash": data(tx.hash),
            "nonce": qty(tx.nonce),
            "blockHash": None if is_pending else data(block.hash),
            "blockNumber": None if is_pending else qty(block.number),
            "transactionIndex": None if is_pending else qty(index),
            "from": to_checksum_address(self._sender(tx)),
            "to": address_text(tx.to),
            "value": qty(tx.value),
            "gas": qty(tx.gas),
            "input": data(tx.data),
        }
        if tx_type:
            result["chainId"] = qty(tx.chain_id)
            result["accessList"] = [
                {"address": to_checksum_address(address), "storageKeys": [data(key.to_bytes(32, "big")) for key in keys]}
                for address, keys in (tx.access_list or ())
            ]
        if tx_type is not None and tx_type >= 2:
            result["maxFeePerGas"] = qty(tx.max_fee_per_gas)
            result["maxPriorityFeePerGas"] = qty(tx.max_priority_fee_per_gas)
            result["gasPrice"] = qty(tx.max_fee_per_gas if is_pending else self._effective_gas_price(block, tx))
            result["yParity"] = qty(tx.y_parity)
            result["v"] = qty(tx.y_parity)
        else:
            result["gasPrice"] = qty(tx.gas_price)
            result["v"] = qty(tx.v if tx_type is None else tx.y_parity)
        result["r"] = qty(tx.r)
        result["s"] = qty(tx.s)
        return result

    def _sender(self, tx) -> bytes:
        sender = self.senders.get(tx.hash)
        if sender is None:
            sender = self.senders[tx.hash] = tx.sender
        return sender

    @staticmethod
    def _effective_gas_price(block, tx) -> int:
        base_fee = getattr(block.header, "base_fee_per_gas", None)
        if base_fee is None or not hasattr(tx, "max_fee_per_gas"):
            return tx.gas_price
        return min(tx.max_fee_per_gas, base_fee + tx.max_priority_fee_per_gas)

    def get_transaction_by_hash(self, params):
        found = self._find_transaction(parse_data(param(params, 0, required=True), "transaction hash", 32))
        return None if found is None else self._transaction_json(*found)

    def _receipts_json(self, block, logs_only: bool = False) -> list[dict]:
        """The block's receipts in JSON-RPC form; log indexes count across the block (as geth
        does; eth-tester's own serializer restarts them per transaction). `logs_only`: just
        {"logs": […]} per receipt (eth_getLogs needs no sender)."""
        receipts = block.get_receipts(self.evm.chaindb)
        results = []
        log_index = 0
        previous_cumulative = 0
        for index, (tx, receipt) in enumerate(zip(block.transactions, receipts)):
            logs = []
            for log in receipt.logs:
                logs.append(
                    {
                        "address": to_checksum_address(log.address),
                        "topics": [data(topic.to_bytes(32, "big")) for topic in log.topics],
                        "data": data(log.data),
                        "blockNumber": qty(block.number),
                        "blockHash": data(block.hash),
                        "transactionHash": data(tx.hash),
                        "transactionIndex": qty(index),
                        "logIndex": qty(log_index),
                        "removed": False,
                    }
                )
                log_index += 1
            if logs_only:
                results.append({"logs": logs})
                continue
            contract = None
            if not tx.to:
                contract = to_checksum_address(generate_contract_address(self._sender(tx), tx.nonce))
            results.append(
                {
                    "transactionHash": data(tx.hash),
                    "transactionIndex": qty(index),
                    "blockHash": data(block.hash),
                    "blockNumber": qty(block.number),
                    "from": to_checksum_address(self._sender(tx)),
                    "to": address_text(tx.to),
                    "cumulativeGasUsed": qty(receipt.gas_used),
                    "gasUsed": qty(receipt.gas_used - previous_cumulative),
                    "effectiveGasPrice": qty(self._effective_gas_price(block, tx)),
                    "contractAddress": contract,
                    "logs": logs,
                    "logsBloom": data(receipt.bloom.to_bytes(256, "big")),
                    "status": qty(1 if receipt.state_root == b"\x01" else 0),
                    "type": qty(getattr(tx, "type_id", None) or 0),
                }
            )
            previous_cumulative = receipt.gas_used
        return results

    def get_transaction_receipt(self, params):
        found = self._find_transaction(parse_data(param(params, 0, required=True), "transaction hash", 32))
        if found is None or found[3]:
            return None  # unknown, or pending: no receipt yet
        block, _, index, _ = found
        return self._receipts_json(block)[index]

    def send_raw_transaction(self, params):
        raw = parse_data(param(params, 0, required=True), "transaction")
        if not raw:
            raise invalid_params("empty transaction")
        tx_hash = keccak(raw)
        # A resubmission of a transaction the node already has (pending or mined) is answered
        # with its hash: the sender's aim (the transaction is in) is met. eth-tester itself would
        # refuse it with a nonce error.
        if self._find_transaction(tx_hash) is not None:
            return data(tx_hash)
        self._refresh_pending_timestamp()
        try:
            tx = self.evm.get_vm().get_transaction_builder().decode(raw)
            self._check_chain_id(tx)
            self.evm.apply_transaction(tx)  # what eth-tester's send_raw_transaction does
            self.senders[tx_hash] = tx.sender  # recovered once, by the validation just now
        except RPCError:
            raise
        except (EthValidationError, ValueError, TypeError) as error:
            raise self._rejection(raw, error) from None
        except Exception as error:  # noqa: BLE001 — rlp decoding errors and the like
            raise RPCError(-32000, f"invalid transaction: {type(error).__name__}: {error}") from None
        if self.automine:
            self.backend.mine_blocks(1)
        return data(tx_hash)

    def _check_chain_id(self, tx) -> None:
        """py-evm does not compare a transaction's chain id with its own (it is a tester); geth
        refuses a wrong one, and unprotected (pre-EIP-155) transactions over RPC, so this node
        does too: a client signing for the wrong chain id fails here as it would on a real node."""
        chain_id = getattr(tx, "chain_id", None)
        if chain_id is None:
            raise RPCError(-32000, "only replay-protected (EIP-155) transactions allowed over RPC")
        if chain_id != self.evm.chain_id:
            raise RPCError(-32000, f"invalid chain id for signer: have {chain_id} want {self.evm.chain_id}")

    def _rejection(self, raw: bytes, error: Exception) -> RPCError:
        """A refused transaction as a geth-like -32000 error (the client matches on words like
        "nonce too low")."""
        message = str(error)
        if "nonce" in message.lower():
            try:
                tx = self.evm.get_vm().get_transaction_builder().decode(raw)
                expected = self.evm.get_vm().state.get_nonce(tx.sender)
                if tx.nonce < expected:
                    return RPCError(-32000, f"nonce too low: next nonce {expected}, tx nonce {tx.nonce}")
                return RPCError(
                    -32000, f"nonce too high: next nonce {expected}, tx nonce {tx.nonce} (this node keeps no queue)"
                )
            except Exception:  # noqa: BLE001 — fall through to the raw message
                pass
        lowered = message.lower()
        if "insufficient" in lowered or "balance" in lowered:
            return RPCError(-32000, f"insufficient funds for gas * price + value: {message}")
        if "base fee" in lowered or "max_fee_per_gas" in lowered or "fee cap" in lowered:
            return RPCError(-32000, f"max fee per gas less than block base fee: {message}")
        if "chain" in lowered and "id" in lowered:
            return RPCError(-32000, f"invalid chain id for signer: {message}")
        return RPCError(-32000, f"invalid transaction: {message}")

    def _refresh_pending_timestamp(self) -> None:
        """py-evm stamps the pending block when the previous one is mined, so a block mined after
        an idle minute would carry a minute-old timestamp; while the pending block is still empty,
        move its timestamp to now (never backwards: a time-travelled clock stays ahead)."""
        evm = self.evm
        if evm.get_block().transactions:
            return
        now = int(time.time())
        if evm.header.timestamp < now:
            evm.header = evm.header.copy(timestamp=now)

    # ---- calls

    def _call_transaction(self, params):
        """(sender, unsigned zero-fee transaction, block) for eth_call / eth_estimateGas. Fee
        fields are ignored: calls run with base fee 0 (py-evm's costless state), so a sender
        without ether (e.g. no "from": the zero address) can call, as on geth."""
        call = param(params, 0, required=True)
        if not isinstance(call, dict):
            raise invalid_params("the call object must be a JSON object")
        sender = parse_address(call["from"], "from") if call.get("from") is not None else b"\x00" * 20
        to = parse_address(call["to"], "to") if call.get("to") is not None else b""
        payload = call.get("input", call.get("data"))
        block = self._state_block(param(params, 1, "latest"))
        vm = self.evm.get_vm(at_header=block.header)
        gas = parse_qty(call["gas"], "gas") if call.get("gas") is not None else block.header.gas_limit
        unsigned = vm.get_transaction_builder().new_unsigned_dynamic_fee_transaction(
            chain_id=self.evm.chain_id,
            nonce=vm.state.get_nonce(sender),
            max_priority_fee_per_gas=0,
            max_fee_per_gas=0,
            gas=gas,
            to=to,
            value=parse_qty(call["value"], "value") if call.get("value") is not None else 0,
            data=parse_data(payload, "input") if payload is not None else b"",
            access_list=(),
        )
        return SpoofTransaction(unsigned, from_=sender), vm

    @staticmethod
    def _raise_vm_error(error) -> None:
        """A failed execution as geth answers it: a revert is code 3, "execution reverted[:
        reason]", data = the revert data; any other VM error is -32000 with its name."""
        if isinstance(error, EVMRevert):
            revert_data = error.args[0] if error.args and isinstance(error.args[0], bytes) else b""
            reason = error_reason(revert_data)
            raise RPCError(3, "execution reverted" + (f": {reason}" if reason else ""), data(revert_data))
        raise RPCError(-32000, f"{type(error).__name__}: {error}".rstrip(": "))

    def call(self, params):
        tx, vm = self._call_transaction(params)
        with vm.in_costless_state() as state:
            computation = state.apply_transaction(tx)
        if computation.is_error:
            self._raise_vm_error(computation.error)
        return data(computation.output)

    def estimate_gas(self, params):
        tx, vm = self._call_transaction(params)
        with vm.in_costless_state() as state:
            try:
                return qty(self.evm.gas_estimator(state, tx))
            except VMError as error:  # fails even with the block's whole gas limit
                self._raise_vm_error(error)

    # ---- logs and fees

    def get_logs(self, params):
        query = param(params, 0, {})
        if not isinstance(query, dict):
            raise invalid_params("the filter must be a JSON object")
        if query.get("blockHash") is not None:
            block = self._block_by_hash(parse_data(query["blockHash"], "blockHash", 32))
            if block is None:
                raise RPCError(-32000, "unknown block")
            blocks = [block]
        else:
            latest = self.evm.get_block().number - 1
            low = self._bound(query.get("fromBlock"), latest)
            high = self._bound(query.get("toBlock"), latest)
            if low > high:
                return []
            blocks = (self.evm.get_canonical_block_by_number(n) for n in range(low, min(high, latest) + 1))
        addresses = query.get("address")
        if addresses is None:
            wanted_addresses = None
        else:
            if isinstance(addresses, str):
                addresses = [addresses]
            wanted_addresses = {to_checksum_address(parse_address(a)) for a in addresses}
        topic_filters = []
        for position, topic in enumerate(query.get("topics") or []):
            if topic is None:
                topic_filters.append(None)
            else:
                options = [topic] if isinstance(topic, str) else topic
                topic_filters.append({data(parse_data(t, f"topics[{position}]", 32)) for t in options})
        results = []
        for block in blocks:
            if not block.transactions:
                continue
            for receipt in self._receipts_json(block, logs_only=True):
                for log in receipt["logs"]:
                    if wanted_addresses is not None and log["address"] not in wanted_addresses:
                        continue
                    topics = log["topics"]
                    if len(topic_filters) > len(topics):
                        continue
                    if all(f is None or topics[i] in f for i, f in enumerate(topic_filters)):
                        results.append(log)
        return results

    def _bound(self, tag, latest: int) -> int:
        if tag in (None, "latest", "safe", "finalized", "pending"):
            return latest
        if tag == "earliest":
            return 0
        return parse_qty(tag, "block")

    def fee_history(self, params):
        count = parse_qty(param(params, 0, required=True), "blockCount")
        if not 1 <= count <= 1024:
            raise invalid_params("blockCount must be between 1 and 1024")
        newest = self._block(param(params, 1, "latest"))
        if newest is None:
            raise RPCError(-32000, "header not found")
        if newest.number == self.evm.get_block().number:  # "pending": report up to latest
            newest = self.evm.get_canonical_block_by_number(newest.number - 1)
        percentiles = param(params, 2, []) or []
        oldest = max(0, newest.number - count + 1)
        base_fees, ratios, rewards = [], [], []
        for number in range(oldest, newest.number + 1):
            block = self.evm.get_canonical_block_by_number(number)
            header = block.header
            base_fees.append(qty(header.base_fee_per_gas))
            ratios.append(header.gas_used / header.gas_limit)
            if percentiles:
                rewards.append([qty(r) for r in self._rewards(block, percentiles)])
        # The base fee of the block after `newest` (the pending block's when newest is latest).
        following = self.evm.get_block() if newest.number + 1 == self.evm.get_block().number else (
            self.evm.get_canonical_block_by_number(newest.number + 1)
        )
        base_fees.append(qty(following.header.base_fee_per_gas))
        result = {"oldestBlock": qty(oldest), "baseFeePerGas": base_fees, "gasUsedRatio": ratios}
        if percentiles:
            result["reward"] = rewards
        return result

    def _rewards(self, block, percentiles) -> list[int]:
        """Per percentile, the effective priority fee below which that share of the block's gas
        was bought (geth's definition); 0 for an empty block."""
        if not block.transactions:
            return [0 for _ in percentiles]
        base_fee = block.header.base_fee_per_gas
        receipts = block.get_receipts(self.evm.chaindb)
        used, previous = [], 0
        for tx, receipt in zip(block.transactions, receipts):
            tip = self._effective_gas_price(block, tx) - base_fee
            used.append((tip, receipt.gas_used - previous))
            previous = receipt.gas_used
        used.sort()
        total = sum(g for _, g in used) or 1
        results = []
        for percentile in percentiles:
            threshold = total * float(percentile) / 100
            running = 0
            chosen = used[-1][0]
            for tip, gas in used:
                running += gas
                if running >= threshold:
                    chosen = tip
                    break
            results.append(chosen)
        return results

    # ---- test controls

    def mine(self, params):
        count = parse_qty(param(params, 0, "0x1"), "count")
        if count < 1:
            raise invalid_params("count must be at least 1")
        self._refresh_pending_timestamp()
        self.backend.mine_blocks(count)
        return "0x0"

    def snapshot(self, params):
        snapshot_id = self.next_snapshot
        self.next_snapshot += 1
        self.snapshots[snapshot_id] = self.backend.take_snapshot()
        return qty(snapshot_id)

    def revert(self, params):
        """Back to the blocks and state as they were when the snapshot was taken (later blocks
        and pending transactions are dropped). As hardhat and anvil do, the snapshot is used up
        (and so are later ones); an unknown id answers false."""
        snapshot_id = parse_qty(param(params, 0, required=True), "snapshot id")
        block_hash = self.snapshots.get(snapshot_id)
        if block_hash is None:
            return False
        for later in [i for i in self.snapshots if i >= snapshot_id]:
            del self.snapshots[later]
        self.backend.revert_to_snapshot(block_hash)
        return True

    def set_automine(self, params):
        enabled = param(params, 0, required=True)
        if not isinstance(enabled, bool):
            raise invalid_params("evm_setAutomine takes true or false")
        self.automine = enabled
        if enabled and self.evm.get_block().transactions:
            self.backend.mine_blocks(1)  # as hardhat: pending transactions are mined now
        return True

    def increase_time(self, params):
        """Moves the node's clock `seconds` forward: mines one block whose timestamp is the
        pending block's plus `seconds` (eth-tester can only move time by mining; pending
        transactions wait for the next evm_mine). Answers the new latest block's timestamp."""
        seconds = parse_qty(param(params, 0, required=True), "seconds")
        if seconds < 1:
            raise invalid_params("seconds must be at least 1")
        if self.evm.get_block().transactions:
            raise RPCError(-32000, "evm_increaseTime with pending transactions: mine them first (evm_mine)")
        target = self.evm.header.timestamp + seconds
        # Not eth-tester's time_travel: it stamps the block one second early.
        self.evm.header = self.evm.header.copy(timestamp=target)
        self.backend.mine_blocks(1)
        return qty(self.evm.get_canonical_block_by_number(self.evm.get_block().number - 1).header.timestamp)


# ---- HTTP -----------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a client reuses its connection
    # Headers and body go out in two writes; with Nagle's algorithm the second waits for the
    # client's delayed ACK (~40 ms a request on a kept-alive connection).
    disable_nagle_algorithm = True
    node: Node = None  # set by serve()

    def do_POST(self):  # noqa: N802 — http.server's naming
        body = self._read_body()
        try:
            request = json.loads(body)
        except ValueError:
            response = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
        else:
            if isinstance(request, list):
                if not request:
                    response = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "empty batch"}}
                else:
                    response = [r for r in (self.node.handle(item) for item in request) if r is not None]
            else:
                response = self.node.handle(request)
        payload = b"" if response is None else json.dumps(response).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _read_body(self) -> bytes:
        """The request body, sent with a Content-Length or chunked (URLSession may do either)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()  # the CRLF after each chunk
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self):  # noqa: N802
        payload = b"POST JSON-RPC requests here\n"
        self.send_response(405)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format, *args):  # noqa: A002 — http.server's signature
        LOG.debug("%s - %s", self.address_string(), format % args)


def write_atomically(path: str, text: str) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as file:
        file.write(text)
    os.replace(temporary, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8545, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the bound port here (atomically) once listening")
    parser.add_argument("--chain-id", type=int, default=None, help=f"default {DEFAULT_CHAIN_ID} (eth-tester's)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="evm-node: %(message)s")

    Handler.node = Node(chain_id=args.chain_id)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        write_atomically(args.port_file, f"{port}\n")
    print(f"evm-node: listening on http://{args.host}:{port} (chain id {Handler.node.evm.chain_id})",
          file=sys.stderr, flush=True)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
