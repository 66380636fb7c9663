"""Contract tests for contracts/Token.vy and contracts/Escrow.vy on the local EVM node, and tests
of the node's JSON-RPC front itself (scripts/evm/node.py).

Run them with scripts/test-contracts (which starts a node with scripts/with-evm), or by hand
against a running node set up by deploy.py:

    scripts/with-evm python3 -m unittest discover -s scripts/evm -p 'test_*.py' -v

Every test runs between evm_snapshot and evm_revert, so tests do not see each other's
transactions. A refused call is checked twice: eth_call answers the contract's revert reason
(so the test knows WHICH rule refused it), and the same call sent as a transaction with a fixed
gas limit is mined with status 0 and changes no balance.

The escrow's defences against a misbehaving token (return values, the reentrancy lock, state
written before the token call) are tested on escrows of their own deployed on the test-only
contracts in contracts/test/ (MockToken, NoReturnToken, MockOperator), which these tests compile
with the pinned vyper (nothing of them is committed in contracts/build).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import unittest
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rlp  # noqa: E402
import vyper  # noqa: E402
from eth_utils import keccak, to_checksum_address  # noqa: E402
from web3.logs import DISCARD  # noqa: E402

from evmlib import ROOT, Signer, artefact, connect, contract, funded_keys  # noqa: E402

DEPOSIT_TOPIC = "0x" + keccak(text="Deposit(bytes32,address,uint256)").hex()
PAYOUT_TOPIC = "0x" + keccak(text="Payout(bytes32,address,uint256)").hex()
DAY = 86400
ZERO = "0x" + "00" * 20


@functools.cache
def test_contract(name: str) -> tuple[list, str]:
    """(abi, creation bytecode) of the test-only contracts/test/<name>.vy, compiled now."""
    source = (ROOT / "contracts" / "test" / f"{name}.vy").read_text()
    output = vyper.compile_code(source, output_formats=["abi", "bytecode"])
    return output["abi"], output["bytecode"]


def create_address(sender: str, nonce: int) -> str:
    """The address a contract created by `sender`'s transaction number `nonce` gets."""
    return to_checksum_address(keccak(rlp.encode([bytes.fromhex(sender[2:]), nonce]))[12:])


def environment(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set: run these tests with scripts/test-contracts")
    return value


class RPCFailure(Exception):
    def __init__(self, error: dict):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message", "")
        self.data = error.get("data")


class EVMTestCase(unittest.TestCase):
    """Connects to the node of scripts/with-evm; each test between a snapshot and a revert."""

    @classmethod
    def setUpClass(cls):
        cls.rpc_url = environment("OW_EVM_RPC")
        cls.w3 = connect(cls.rpc_url)
        keys = funded_keys()
        cls.owner = Signer(cls.w3, keys[0])
        cls.operator = Signer(cls.w3, keys[1])
        cls.user = Signer(cls.w3, keys[2])
        cls.user2 = Signer(cls.w3, keys[3])
        cls.stranger = Signer(cls.w3, keys[6])  # funded with ether, holds no tokens
        cls.escrow = contract(cls.w3, "Escrow", environment("OW_EVM_ESCROW"))
        cls.token = contract(cls.w3, "Token", environment("OW_EVM_TOKEN"))

    def setUp(self):
        self.snapshot_id = self.rpc("evm_snapshot")

    def tearDown(self):
        self.rpc("evm_setAutomine", True)
        self.assertTrue(self.rpc("evm_revert", self.snapshot_id))

    # ---- helpers

    def raw_rpc(self, method: str, *params) -> dict:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(self.rpc_url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def rpc(self, method: str, *params):
        answer = self.raw_rpc(method, *params)
        if "error" in answer:
            raise RPCFailure(answer["error"])
        return answer["result"]

    def balance(self, address: str) -> int:
        return self.token.functions.balanceOf(address).call()

    def ok(self, signer: Signer, function):
        receipt = signer.call(function)
        self.assertEqual(receipt["status"], 1, f"{function.fn_name} by {signer.address} failed")
        return receipt

    def refused(self, signer: Signer, function, reason: str, token=None, holders: tuple = ()):
        """Asserts the contract refuses `function` from `signer` for `reason` (eth_call) and that
        the transaction is mined as a revert that moves no tokens (of `token`, by default the
        deployed Token, among the usual holders and `holders`)."""
        token = token or self.token
        with self.assertRaises(RPCFailure) as caught:
            self.rpc("eth_call", {"from": signer.address, "to": function.address,
                                  "data": function._encode_transaction_data()}, "latest")
        self.assertEqual(caught.exception.code, 3)
        self.assertIn(reason, caught.exception.message)
        holders = [signer.address, self.escrow.address, self.user.address, self.user2.address, *holders]
        before = [token.functions.balanceOf(a).call() for a in holders]
        receipt = signer.call(function)
        self.assertEqual(receipt["status"], 0, f"{function.fn_name} was not refused")
        self.assertEqual(receipt["logs"], [])
        self.assertEqual([token.functions.balanceOf(a).call() for a in holders], before)

    def deposit(self, signer: Signer, amount: int, ref: bytes):
        self.ok(signer, self.token.functions.approve(self.escrow.address, amount))
        return self.ok(signer, self.escrow.functions.deposit(amount, ref))

    def pay(self, amount: int, to: str, withdrawal_id: bytes):
        return self.ok(self.operator, self.escrow.functions.payout(to, amount, withdrawal_id))

    def move_to_next_day(self):
        """Mines a block at the first second of the next UTC day (the cap's window)."""
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        self.rpc("evm_increaseTime", hex((pending // DAY + 1) * DAY - pending))

    def travel_to(self, timestamp: int):
        """Mines an empty block at `timestamp` (later than the pending block's); as the node's
        clock is then ahead of the wall clock, each further block is exactly one second later
        (node.py: max(now, parent + 1))."""
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        self.assertGreaterEqual(timestamp, pending)
        self.assertEqual(int(self.rpc("evm_increaseTime", hex(timestamp - pending)), 16), timestamp)

    def block_time(self, receipt) -> int:
        return self.w3.eth.get_block(receipt["blockNumber"])["timestamp"]

    def deploy_test_contract(self, name: str, *arguments):
        """Deploys the test-only contracts/test/<name>.vy from the stranger's key."""
        abi, bytecode = test_contract(name)
        data = self.w3.eth.contract(abi=abi, bytecode=bytecode).constructor(*arguments).data_in_transaction
        receipt = self.stranger.send(None, data)
        self.assertEqual(receipt["status"], 1, f"deploying {name} failed")
        return self.w3.eth.contract(address=receipt["contractAddress"], abi=abi)

    def escrow_on(self, token: str, operator: str, daily_cap: int = 10**6):
        """An Escrow of the test's own (owner = the stranger) holding `token`."""
        return contract(self.w3, "Escrow", self.stranger.deploy("Escrow", token, operator, daily_cap))


class EscrowTests(EVMTestCase):
    def test_deployment_roles_and_token(self):
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.assertEqual(self.escrow.functions.operator().call(), self.operator.address)
        self.assertEqual(self.escrow.functions.token().call(), self.token.address)
        self.assertFalse(self.escrow.functions.paused().call())
        self.assertEqual(self.token.functions.decimals().call(), 2)
        self.assertEqual(self.token.functions.symbol().call(), "OEUR")
        self.assertEqual(self.token.functions.name().call(), "Offline Euro")
        self.assertEqual(self.balance(self.user.address), 100_000_000)

    def test_deposit_and_payout_round_trip_moves_exact_amounts_and_logs_the_events(self):
        ref = bytes(range(32))
        withdrawal_id = b"\xab" * 32
        user_before, escrow_before, payee_before = (
            self.balance(self.user.address), self.balance(self.escrow.address), self.balance(self.user2.address))

        receipt = self.deposit(self.user, 12_34, ref)
        deposits = [log for log in receipt["logs"] if log["topics"][0].to_0x_hex() == DEPOSIT_TOPIC]
        self.assertEqual(len(deposits), 1)
        self.assertEqual(deposits[0]["address"], self.escrow.address)
        self.assertEqual(bytes(deposits[0]["topics"][1]), ref)
        self.assertEqual(bytes(deposits[0]["topics"][2])[12:], bytes.fromhex(self.user.address[2:]))
        self.assertEqual(int.from_bytes(deposits[0]["data"], "big"), 12_34)
        event = self.escrow.events.Deposit().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((event["account_ref"], event["sender"], event["amount"]), (ref, self.user.address, 12_34))
        self.assertEqual(self.balance(self.user.address), user_before - 12_34)
        self.assertEqual(self.balance(self.escrow.address), escrow_before + 12_34)

        receipt = self.pay(10_00, self.user2.address, withdrawal_id)
        payouts = [log for log in receipt["logs"] if log["topics"][0].to_0x_hex() == PAYOUT_TOPIC]
        self.assertEqual(len(payouts), 1)
        self.assertEqual(bytes(payouts[0]["topics"][1]), withdrawal_id)
        self.assertEqual(bytes(payouts[0]["topics"][2])[12:], bytes.fromhex(self.user2.address[2:]))
        self.assertEqual(int.from_bytes(payouts[0]["data"], "big"), 10_00)
        event = self.escrow.events.Payout().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((event["withdrawal_id"], event["to"], event["amount"]),
                         (withdrawal_id, self.user2.address, 10_00))
        self.assertEqual(self.balance(self.escrow.address), escrow_before + 2_34)
        self.assertEqual(self.balance(self.user2.address), payee_before + 10_00)
        self.assertTrue(self.escrow.functions.paid(withdrawal_id).call())
        self.assertEqual(self.escrow.functions.paid_today().call(), 10_00)

        # The server reads deposits with eth_getLogs by topic: exactly this one.
        logs = self.rpc("eth_getLogs", {"address": self.escrow.address, "fromBlock": "0x0",
                                        "topics": [DEPOSIT_TOPIC, "0x" + ref.hex()]})
        self.assertEqual([int(log["data"], 16) for log in logs], [12_34])

    def test_deposit_of_zero_is_refused(self):
        self.ok(self.user, self.token.functions.approve(self.escrow.address, 100))
        self.refused(self.user, self.escrow.functions.deposit(0, b"\x01" * 32), "escrow: zero amount")

    def test_deposit_without_enough_approval_is_refused(self):
        self.refused(self.user, self.escrow.functions.deposit(100, b"\x01" * 32), "insufficient allowance")
        self.ok(self.user, self.token.functions.approve(self.escrow.address, 99))
        self.refused(self.user, self.escrow.functions.deposit(100, b"\x01" * 32), "insufficient allowance")

    def test_deposit_beyond_the_balance_is_refused(self):
        self.ok(self.stranger, self.token.functions.approve(self.escrow.address, 100))
        self.refused(self.stranger, self.escrow.functions.deposit(100, b"\x01" * 32), "erc20: transfer amount exceeds balance")

    def test_only_the_operator_pays_out(self):
        self.deposit(self.user, 500, b"\x01" * 32)
        for signer in (self.owner, self.user, self.stranger):
            self.refused(signer, self.escrow.functions.payout(signer.address, 100, b"\x02" * 32),
                         "escrow: caller is not the operator")
        self.pay(100, self.user2.address, b"\x02" * 32)

    def test_a_withdrawal_id_is_paid_once(self):
        self.deposit(self.user, 1_000, b"\x01" * 32)
        self.pay(300, self.user2.address, b"\x07" * 32)
        for to, amount in ((self.user2.address, 300), (self.user.address, 1)):
            self.refused(self.operator, self.escrow.functions.payout(to, amount, b"\x07" * 32),
                         "escrow: withdrawal already paid")
        self.pay(300, self.user2.address, b"\x08" * 32)  # another id is fine

    def test_payout_of_zero_or_to_the_zero_address_is_refused(self):
        self.deposit(self.user, 1_000, b"\x01" * 32)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 0, b"\x03" * 32),
                     "escrow: zero amount")
        self.refused(self.operator, self.escrow.functions.payout("0x" + "00" * 20, 5, b"\x03" * 32),
                     "escrow: payout to the zero address")
        self.assertFalse(self.escrow.functions.paid(b"\x03" * 32).call())

    def test_payout_beyond_the_escrows_holdings_is_refused(self):
        held = self.balance(self.escrow.address)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, held + 1, b"\x04" * 32),
                     "erc20: transfer amount exceeds balance")
        self.assertFalse(self.escrow.functions.paid(b"\x04" * 32).call())

    def test_pause_refuses_deposits_and_payouts_until_unpaused(self):
        self.deposit(self.user, 1_000, b"\x01" * 32)
        self.ok(self.user, self.token.functions.approve(self.escrow.address, 100))
        self.ok(self.owner, self.escrow.functions.pause())
        self.assertTrue(self.escrow.functions.paused().call())
        self.refused(self.user, self.escrow.functions.deposit(100, b"\x01" * 32), "escrow: paused")
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 100, b"\x05" * 32),
                     "escrow: paused")
        self.refused(self.owner, self.escrow.functions.pause(), "escrow: already paused")
        self.ok(self.owner, self.escrow.functions.unpause())
        self.ok(self.user, self.escrow.functions.deposit(100, b"\x01" * 32))
        self.pay(100, self.user2.address, b"\x05" * 32)

    def test_only_the_owner_administers(self):
        new_operator = Signer(self.w3, funded_keys()[7]).address
        for signer in (self.operator, self.user, self.stranger):
            for function in (
                self.escrow.functions.pause(),
                self.escrow.functions.set_operator(new_operator),
                self.escrow.functions.set_daily_cap(1),
                self.escrow.functions.transfer_ownership(signer.address),
            ):
                self.refused(signer, function, "ownable: caller is not the owner")
        self.ok(self.owner, self.escrow.functions.pause())
        self.refused(self.operator, self.escrow.functions.unpause(), "ownable: caller is not the owner")
        self.ok(self.owner, self.escrow.functions.unpause())
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.assertEqual(self.escrow.functions.operator().call(), self.operator.address)
        self.assertEqual(self.escrow.functions.daily_cap().call(), 10**12)

    def test_the_owner_replaces_the_operator_and_the_old_key_stops_paying(self):
        self.deposit(self.user, 1_000, b"\x01" * 32)
        replacement = Signer(self.w3, funded_keys()[7])
        receipt = self.ok(self.owner, self.escrow.functions.set_operator(replacement.address))
        changed = self.escrow.events.OperatorChanged().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((changed["previous_operator"], changed["new_operator"]),
                         (self.operator.address, replacement.address))
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 100, b"\x06" * 32),
                     "escrow: caller is not the operator")
        self.ok(replacement, self.escrow.functions.payout(self.user2.address, 100, b"\x06" * 32))

    def test_the_key_leak_runbook_pause_replace_unpause(self):
        """docs/server.md's order after an operator key leak: pause, set_operator while paused,
        unpause; then the new key pays and the old one is refused."""
        self.deposit(self.user, 1_000, b"\x01" * 32)
        replacement = Signer(self.w3, funded_keys()[7])
        self.ok(self.owner, self.escrow.functions.pause())
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 100, b"\x81" * 32), "escrow: paused")
        self.ok(self.owner, self.escrow.functions.set_operator(replacement.address))
        self.ok(self.owner, self.escrow.functions.unpause())
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 100, b"\x81" * 32),
                     "escrow: caller is not the operator")
        self.ok(replacement, self.escrow.functions.payout(self.user2.address, 100, b"\x81" * 32))

    def test_a_deposit_only_moves_the_callers_own_tokens(self):
        """An approval given to the escrow cannot be spent by someone else's deposit (which
        would credit the stranger's account with the approver's tokens)."""
        self.ok(self.user, self.token.functions.approve(self.escrow.address, 500))
        user_before = self.balance(self.user.address)
        self.refused(self.stranger, self.escrow.functions.deposit(500, b"\x66" * 32),
                     "erc20: insufficient allowance")
        self.assertEqual(self.balance(self.user.address), user_before)
        self.assertEqual(self.token.functions.allowance(self.user.address, self.escrow.address).call(), 500)

    def test_owner_and_operator_stay_different_keys(self):
        self.refused(self.owner, self.escrow.functions.set_operator(self.owner.address), "escrow: operator is the owner")
        self.refused(self.owner, self.escrow.functions.set_operator(ZERO), "escrow: operator is the zero address")
        # Neither contract could sign a payout: payouts would stop until the owner noticed.
        for address in (self.escrow.address, self.token.address):
            self.refused(self.owner, self.escrow.functions.set_operator(address),
                         "escrow: operator is the escrow or its token")
        self.refused(self.owner, self.escrow.functions.transfer_ownership(self.operator.address),
                     "escrow: new owner is the operator")
        # renounce_ownership is not offered: an escrow without owner could not be paused again.
        self.assertNotIn("renounce_ownership", [f["name"] for f in self.escrow.abi if f["type"] == "function"])
        # A handover works, and the new owner can then not become the operator either.
        new_owner = Signer(self.w3, funded_keys()[7])
        self.ok(self.owner, self.escrow.functions.transfer_ownership(new_owner.address))
        self.ok(new_owner, self.escrow.functions.accept_ownership())
        self.assertEqual(self.escrow.functions.owner().call(), new_owner.address)
        self.refused(new_owner, self.escrow.functions.set_operator(new_owner.address), "escrow: operator is the owner")
        self.refused(self.owner, self.escrow.functions.pause(), "ownable: caller is not the owner")
        self.assertEqual(self.escrow.functions.operator().call(), self.operator.address)

    def test_renounce_ownership_cannot_be_called_even_by_its_raw_selector(self):
        data = "0x" + keccak(text="renounce_ownership()")[:4].hex()
        with self.assertRaises(RPCFailure) as caught:
            self.rpc("eth_call", {"from": self.owner.address, "to": self.escrow.address, "data": data}, "latest")
        self.assertEqual(caught.exception.code, 3)
        self.assertEqual(self.owner.send(self.escrow.address, data)["status"], 0)
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.ok(self.owner, self.escrow.functions.pause())

    def test_ownership_moves_only_when_the_new_owner_accepts(self):
        new_owner = Signer(self.w3, funded_keys()[7])
        receipt = self.ok(self.owner, self.escrow.functions.transfer_ownership(new_owner.address))
        started = self.escrow.events.OwnershipTransferStarted().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((started["previous_owner"], started["new_owner"]), (self.owner.address, new_owner.address))
        self.assertEqual(self.escrow.functions.pending_owner().call(), new_owner.address)
        # Until the new owner accepts, the old one is in charge and the new one is not.
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.refused(new_owner, self.escrow.functions.pause(), "ownable: caller is not the owner")
        self.ok(self.owner, self.escrow.functions.pause())
        self.ok(self.owner, self.escrow.functions.unpause())
        for signer in (self.stranger, self.operator, self.owner):
            self.refused(signer, self.escrow.functions.accept_ownership(), "ownable_2step: caller is not the new owner")

        receipt = self.ok(new_owner, self.escrow.functions.accept_ownership())
        moved = self.escrow.events.OwnershipTransferred().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((moved["previous_owner"], moved["new_owner"]), (self.owner.address, new_owner.address))
        self.assertEqual(self.escrow.functions.owner().call(), new_owner.address)
        self.assertEqual(self.escrow.functions.pending_owner().call(), ZERO)
        self.refused(self.owner, self.escrow.functions.pause(), "ownable: caller is not the owner")
        self.refused(new_owner, self.escrow.functions.accept_ownership(), "ownable_2step: caller is not the new owner")
        self.ok(new_owner, self.escrow.functions.pause())

    def test_a_pending_offer_of_ownership_is_replaced_or_withdrawn_by_the_owner(self):
        first, second = Signer(self.w3, funded_keys()[7]), Signer(self.w3, funded_keys()[8])
        self.ok(self.owner, self.escrow.functions.transfer_ownership(first.address))
        self.ok(self.owner, self.escrow.functions.transfer_ownership(second.address))
        self.refused(first, self.escrow.functions.accept_ownership(), "ownable_2step: caller is not the new owner")
        self.ok(self.owner, self.escrow.functions.transfer_ownership(ZERO))  # withdraws the offer
        self.assertEqual(self.escrow.functions.pending_owner().call(), ZERO)
        self.refused(second, self.escrow.functions.accept_ownership(), "ownable_2step: caller is not the new owner")
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)

    def test_the_operator_cannot_accept_ownership(self):
        candidate = Signer(self.w3, funded_keys()[7])
        self.ok(self.owner, self.escrow.functions.transfer_ownership(candidate.address))
        # The owner makes the pending owner the operator after the offer: the accept must not
        # join the two roles in one key.
        self.ok(self.owner, self.escrow.functions.set_operator(candidate.address))
        self.refused(candidate, self.escrow.functions.accept_ownership(), "escrow: new owner is the operator")
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.assertEqual(self.escrow.functions.operator().call(), candidate.address)

    def test_ownership_cannot_be_offered_to_the_escrow_or_the_token(self):
        for address in (self.escrow.address, self.token.address):
            self.refused(self.owner, self.escrow.functions.transfer_ownership(address),
                         "escrow: new owner is the escrow or its token")
        self.assertEqual(self.escrow.functions.pending_owner().call(), ZERO)
        self.assertEqual(self.escrow.functions.owner().call(), self.owner.address)
        self.ok(self.owner, self.escrow.functions.pause())

    def test_the_constructor_refuses_the_deployer_as_operator(self):
        escrow = self.w3.eth.contract(abi=self.escrow.abi, bytecode=artefact("Escrow")[1])
        nonce = self.w3.eth.get_transaction_count(self.stranger.address, "pending")
        real = self.token.address
        for token, operator, reason in (
            (real, self.stranger.address, "escrow: operator is the owner"),
            (real, ZERO, "escrow: operator is the zero address"),
            (ZERO, self.operator.address, "escrow: token is the zero address"),
            (self.user.address, self.operator.address, "escrow: token has no code"),
            (real, real, "escrow: operator is the escrow or its token"),
            (real, create_address(self.stranger.address, nonce + 5), "escrow: operator is the escrow or its token"),
        ):
            data = escrow.constructor(token, operator, 10**6).data_in_transaction
            with self.assertRaises(RPCFailure) as caught:
                self.rpc("eth_call", {"from": self.stranger.address, "data": data})
            self.assertIn(reason, caught.exception.message)
            receipt = self.stranger.w3.eth.wait_for_transaction_receipt(self.stranger.send(None, data, wait=False))
            self.assertEqual(receipt["status"], 0)
        self.assertNotEqual(self.stranger.deploy("Escrow", self.token.address, self.operator.address, 10**6), None)

    def test_payout_to_the_escrow_itself_or_the_token_is_refused(self):
        self.deposit(self.user, 1_000, b"\x01" * 32)
        withdrawal_id = b"\x09" * 32
        self.refused(self.operator, self.escrow.functions.payout(self.escrow.address, 100, withdrawal_id),
                     "escrow: payout to the escrow")
        self.refused(self.operator, self.escrow.functions.payout(self.token.address, 100, withdrawal_id),
                     "escrow: payout to the token contract", holders=(self.token.address,))
        self.assertFalse(self.escrow.functions.paid(withdrawal_id).call())
        self.assertEqual(self.escrow.functions.paid_today().call(), 0)
        self.pay(100, self.user2.address, withdrawal_id)  # the same id to a wallet is fine

    def test_payouts_stop_at_the_daily_cap_and_resume_the_next_day(self):
        self.deposit(self.user, 5_000, b"\x01" * 32)
        receipt = self.ok(self.owner, self.escrow.functions.set_daily_cap(1_000))
        changed = self.escrow.events.DailyCapChanged().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((changed["previous_cap"], changed["new_cap"]), (10**12, 1_000))
        # Stay clear of a day boundary for the first half (the node's clock runs ahead of time).
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        if DAY - pending % DAY < 600:
            self.move_to_next_day()
        self.pay(600, self.user2.address, b"\x11" * 32)
        self.assertEqual(self.escrow.functions.remaining_today().call(), 400)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 401, b"\x12" * 32),
                     "escrow: daily cap exceeded")
        self.pay(400, self.user2.address, b"\x12" * 32)  # exactly up to the cap
        self.assertEqual(self.escrow.functions.paid_today().call(), 1_000)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x13" * 32),
                     "escrow: daily cap exceeded")
        # A huge amount is refused by the cap rule, not by an arithmetic overflow.
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 2**256 - 1, b"\x13" * 32),
                     "escrow: daily cap exceeded")

        self.move_to_next_day()
        self.assertEqual(self.escrow.functions.paid_today().call(), 0)
        self.assertEqual(self.escrow.functions.remaining_today().call(), 1_000)
        self.pay(1_000, self.user2.address, b"\x13" * 32)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x14" * 32),
                     "escrow: daily cap exceeded")

    def test_lowering_the_cap_below_todays_payouts_stops_payouts_for_the_day(self):
        self.deposit(self.user, 5_000, b"\x01" * 32)
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        if DAY - pending % DAY < 600:
            self.move_to_next_day()
        self.ok(self.owner, self.escrow.functions.set_daily_cap(1_000))
        self.pay(600, self.user2.address, b"\x21" * 32)
        self.ok(self.owner, self.escrow.functions.set_daily_cap(500))
        self.assertEqual(self.escrow.functions.remaining_today().call(), 0)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x22" * 32),
                     "escrow: daily cap exceeded")

    def test_the_cap_window_is_the_utc_day(self):
        """The window turns at 00:00:00 UTC exactly: a payout at 23:59:59 and one at 00:00:00
        may each use the whole cap (the documented 2 x cap worst case), the next second not."""
        self.deposit(self.user, 5_000, b"\x01" * 32)
        self.ok(self.owner, self.escrow.functions.set_daily_cap(1_000))
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        midnight = (pending // DAY + 2) * DAY  # a day ahead: later blocks are parent + 1 second
        self.travel_to(midnight - 2)
        receipt = self.pay(1_000, self.user2.address, b"\x51" * 32)
        self.assertEqual(self.block_time(receipt), midnight - 1)
        self.assertEqual(self.escrow.functions.cap_day().call(), midnight // DAY - 1)
        receipt = self.pay(1_000, self.user2.address, b"\x52" * 32)
        self.assertEqual(self.block_time(receipt), midnight)
        self.assertEqual(self.escrow.functions.cap_day().call(), midnight // DAY)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x53" * 32),
                     "escrow: daily cap exceeded")  # eth_call and transaction at midnight + 1
        self.assertEqual(self.w3.eth.get_block("latest")["timestamp"], midnight + 1)

    def test_raising_the_cap_waits_a_day(self):
        self.deposit(self.user, 10_000, b"\x01" * 32)
        self.ok(self.owner, self.escrow.functions.set_daily_cap(1_000))
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        self.travel_to((pending // DAY + 2) * DAY + 10)  # clear of midnight; later blocks + 1 s
        receipt = self.ok(self.owner, self.escrow.functions.set_daily_cap(3_000))
        raised_at = self.block_time(receipt)
        scheduled = self.escrow.events.DailyCapRaiseScheduled().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((scheduled["current_cap"], scheduled["new_cap"], scheduled["effective_at"]),
                         (1_000, 3_000, raised_at + DAY))
        self.assertEqual(len(self.escrow.events.DailyCapChanged().process_receipt(receipt, errors=DISCARD)), 0)
        self.assertEqual(self.escrow.functions.daily_cap().call(), 1_000)
        self.assertEqual(self.escrow.functions.next_daily_cap().call(), 3_000)
        self.assertEqual(self.escrow.functions.next_daily_cap_at().call(), raised_at + DAY)
        self.pay(1_000, self.user2.address, b"\x61" * 32)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x62" * 32),
                     "escrow: daily cap exceeded")

        # The next UTC day begins before the raise applies: the old cap still holds then.
        self.travel_to(raised_at + DAY - 3)
        receipt = self.pay(1_000, self.user2.address, b"\x62" * 32)
        self.assertEqual(self.block_time(receipt), raised_at + DAY - 2)
        self.refused(self.operator, self.escrow.functions.payout(self.user2.address, 1, b"\x63" * 32),
                     "escrow: daily cap exceeded")  # at raised_at + DAY - 1
        receipt = self.pay(2_000, self.user2.address, b"\x63" * 32)  # the raise applies
        self.assertEqual(self.block_time(receipt), raised_at + DAY)
        self.assertEqual(self.escrow.functions.daily_cap().call(), 3_000)
        self.assertEqual(self.escrow.functions.remaining_today().call(), 0)
        # Lowering from the raised cap is immediate and reports the raised cap as the previous one.
        receipt = self.ok(self.owner, self.escrow.functions.set_daily_cap(2_500))
        changed = self.escrow.events.DailyCapChanged().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((changed["previous_cap"], changed["new_cap"]), (3_000, 2_500))
        self.assertEqual(self.escrow.functions.daily_cap().call(), 2_500)
        self.assertEqual(self.escrow.functions.next_daily_cap_at().call(), 0)

    def test_lowering_the_cap_applies_at_once_and_cancels_a_waiting_raise(self):
        self.ok(self.owner, self.escrow.functions.set_daily_cap(1_000))
        self.assertEqual(self.escrow.functions.daily_cap().call(), 1_000)
        self.ok(self.owner, self.escrow.functions.set_daily_cap(5_000))
        receipt = self.ok(self.owner, self.escrow.functions.set_daily_cap(800))
        changed = self.escrow.events.DailyCapChanged().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((changed["previous_cap"], changed["new_cap"]), (1_000, 800))
        self.assertEqual(self.escrow.functions.daily_cap().call(), 800)
        self.assertEqual((self.escrow.functions.next_daily_cap().call(),
                          self.escrow.functions.next_daily_cap_at().call()), (0, 0))
        self.rpc("evm_increaseTime", hex(2 * DAY))
        self.assertEqual(self.escrow.functions.daily_cap().call(), 800)


class TokenDefenceTests(EVMTestCase):
    """The escrow on tokens that misbehave (contracts/test/*.vy): each test fails when the rule
    it names is taken out of Escrow.vy."""

    def test_a_token_returning_false_is_refused(self):
        token = self.deploy_test_contract("MockToken")
        escrow = self.escrow_on(token.address, self.operator.address)
        self.ok(self.stranger, token.functions.mint(self.user.address, 1_000))
        self.ok(self.stranger, token.functions.mint(escrow.address, 1_000))
        self.ok(self.stranger, token.functions.set_fails(True))
        self.refused(self.user, escrow.functions.deposit(100, b"\x01" * 32), "escrow: token transferFrom failed",
                     token=token, holders=(escrow.address,))
        self.refused(self.operator, escrow.functions.payout(self.user2.address, 100, b"\x71" * 32),
                     "escrow: token transfer failed", token=token, holders=(escrow.address,))
        self.assertFalse(escrow.functions.paid(b"\x71" * 32).call())
        self.assertEqual(escrow.functions.paid_today().call(), 0)
        # The same calls pass once the token answers True: the bool was the reason.
        self.ok(self.stranger, token.functions.set_fails(False))
        self.ok(self.user, escrow.functions.deposit(100, b"\x01" * 32))
        self.ok(self.operator, escrow.functions.payout(self.user2.address, 100, b"\x71" * 32))
        self.assertEqual(token.functions.balanceOf(escrow.address).call(), 1_000)
        self.assertEqual(token.functions.balanceOf(self.user2.address).call(), 100)

    def test_a_token_returning_nothing_counts_as_success(self):
        token = self.deploy_test_contract("NoReturnToken")
        escrow = self.escrow_on(token.address, self.operator.address)
        self.ok(self.stranger, token.functions.mint(self.user.address, 1_000))
        receipt = self.ok(self.user, escrow.functions.deposit(300, b"\x02" * 32))
        event = escrow.events.Deposit().process_receipt(receipt, errors=DISCARD)[0]["args"]
        self.assertEqual((event["account_ref"], event["amount"]), (b"\x02" * 32, 300))
        self.ok(self.operator, escrow.functions.payout(self.user2.address, 200, b"\x72" * 32))
        self.assertTrue(escrow.functions.paid(b"\x72" * 32).call())
        self.assertEqual([token.functions.balanceOf(a).call() for a in (self.user.address, escrow.address, self.user2.address)],
                         [700, 100, 200])

    def reentrant_setup(self):
        """A MockToken whose callback is a MockOperator, the operator of an escrow on that token
        holding 1,000; the operator armed to try `payout(user2, 1, 0x74…)` from the callback."""
        token = self.deploy_test_contract("MockToken")
        operator = self.deploy_test_contract("MockOperator")
        escrow = self.escrow_on(token.address, operator.address)
        self.ok(self.stranger, token.functions.mint(escrow.address, 1_000))
        self.ok(self.stranger, token.functions.set_hook(operator.address))
        self.ok(self.stranger, operator.functions.arm(escrow.address, self.user2.address, 1, b"\x74" * 32))
        return token, operator, escrow

    def test_a_reentrant_token_cannot_pay_twice(self):
        token, operator, escrow = self.reentrant_setup()
        self.ok(self.stranger, operator.functions.pay(escrow.address, self.user2.address, 100, b"\x73" * 32))
        self.assertTrue(operator.functions.tried().call())
        self.assertFalse(operator.functions.reentry_succeeded().call(), "the nested payout got through")
        self.assertTrue(escrow.functions.paid(b"\x73" * 32).call())
        self.assertFalse(escrow.functions.paid(b"\x74" * 32).call())
        self.assertEqual(escrow.functions.paid_today().call(), 100)
        self.assertEqual(token.functions.balanceOf(self.user2.address).call(), 100)

    def test_a_token_cannot_reenter_the_escrow_during_a_deposit(self):
        token, operator, escrow = self.reentrant_setup()
        self.ok(self.stranger, token.functions.mint(self.user.address, 500))
        self.ok(self.user, escrow.functions.deposit(500, b"\x03" * 32))
        self.assertTrue(operator.functions.tried().call())
        self.assertFalse(operator.functions.reentry_succeeded().call(), "a payout ran inside the deposit")
        self.assertFalse(escrow.functions.paid(b"\x74" * 32).call())
        self.assertEqual(token.functions.balanceOf(escrow.address).call(), 1_500)
        self.assertEqual(token.functions.balanceOf(self.user2.address).call(), 0)

    def test_state_is_written_before_the_token_call(self):
        """What the escrow shows while its token call runs: the id is already paid and the day's
        total already counts it (checks-effects-interactions; the lock alone would not show)."""
        token = self.deploy_test_contract("MockToken")
        escrow = self.escrow_on(token.address, self.operator.address)
        self.ok(self.stranger, token.functions.mint(escrow.address, 1_000))
        self.ok(self.stranger, token.functions.watch(escrow.address, b"\x75" * 32))
        self.ok(self.operator, escrow.functions.payout(self.user2.address, 300, b"\x75" * 32))
        self.assertTrue(token.functions.seen().call())
        self.assertTrue(token.functions.seen_paid().call())
        self.assertEqual(token.functions.seen_paid_today().call(), 300)


class TokenTests(EVMTestCase):
    def test_only_minters_mint(self):
        supply = self.token.functions.totalSupply().call()
        self.refused(self.user, self.token.functions.mint(self.user.address, 1), "erc20: access is denied")
        self.ok(self.owner, self.token.functions.mint(self.stranger.address, 7))
        self.assertEqual(self.balance(self.stranger.address), 7)
        self.assertEqual(self.token.functions.totalSupply().call(), supply + 7)


class NodeTests(EVMTestCase):
    """The local EVM node's JSON-RPC front: the behaviours the wallet server's client relies on."""

    def approve_raw(self, signer: Signer, amount: int, nonce: int | None = None) -> tuple[str, str]:
        function = self.token.functions.approve(self.escrow.address, amount)
        raw, tx_hash = signer.transaction(self.token.address, function._encode_transaction_data(), nonce=nonce)
        return "0x" + raw.hex(), "0x" + tx_hash.hex()

    def test_revert_to_a_snapshot_removes_a_mined_deposit(self):
        before = int(self.rpc("eth_blockNumber"), 16)
        snapshot = self.rpc("evm_snapshot")
        receipt = self.deposit(self.user, 250, b"\x31" * 32)
        deposit_hash = receipt["transactionHash"].to_0x_hex()
        query = {"address": self.escrow.address, "fromBlock": hex(before + 1), "topics": [DEPOSIT_TOPIC]}
        self.assertEqual(len(self.rpc("eth_getLogs", query)), 1)
        self.assertTrue(self.rpc("evm_revert", snapshot))
        self.assertEqual(int(self.rpc("eth_blockNumber"), 16), before)
        self.assertEqual(self.rpc("eth_getLogs", query), [])
        self.assertIsNone(self.rpc("eth_getTransactionReceipt", deposit_hash))
        self.assertIsNone(self.rpc("eth_getTransactionByHash", deposit_hash))
        self.assertFalse(self.rpc("evm_revert", snapshot))  # a snapshot is used up by its revert
        # New blocks reuse the numbers, with other hashes.
        self.deposit(self.user, 250, b"\x32" * 32)
        logs = self.rpc("eth_getLogs", query)
        self.assertEqual([log["topics"][1] for log in logs], ["0x" + "32" * 32])

    def test_with_automine_off_a_transaction_waits_in_the_pending_block_until_evm_mine(self):
        latest_nonce = int(self.rpc("eth_getTransactionCount", self.user.address, "latest"), 16)
        number = int(self.rpc("eth_blockNumber"), 16)
        self.assertTrue(self.rpc("evm_setAutomine", False))
        first, first_hash = self.approve_raw(self.user, 10)
        self.assertEqual(self.rpc("eth_sendRawTransaction", first), first_hash)
        second, second_hash = self.approve_raw(self.user, 20)  # the next nonce, from "pending"
        self.assertEqual(self.rpc("eth_sendRawTransaction", second), second_hash)
        self.assertEqual(int(self.rpc("eth_getTransactionCount", self.user.address, "pending"), 16), latest_nonce + 2)
        self.assertEqual(int(self.rpc("eth_getTransactionCount", self.user.address, "latest"), 16), latest_nonce)
        self.assertIsNone(self.rpc("eth_getTransactionReceipt", first_hash))
        self.assertIsNone(self.rpc("eth_getTransactionByHash", first_hash)["blockNumber"])
        self.assertEqual(int(self.rpc("eth_blockNumber"), 16), number)

        self.assertEqual(self.rpc("evm_mine"), "0x0")
        receipts = [self.rpc("eth_getTransactionReceipt", h) for h in (first_hash, second_hash)]
        self.assertEqual([r["status"] for r in receipts], ["0x1", "0x1"])
        self.assertEqual({int(r["blockNumber"], 16) for r in receipts}, {number + 1})
        self.assertEqual(self.token.functions.allowance(self.user.address, self.escrow.address).call(), 20)
        self.rpc("evm_mine", "0x3")
        self.assertEqual(int(self.rpc("eth_blockNumber"), 16), number + 4)

    def test_resending_a_known_transaction_answers_its_hash(self):
        self.rpc("evm_setAutomine", False)
        raw, tx_hash = self.approve_raw(self.user, 10)
        self.assertEqual(self.rpc("eth_sendRawTransaction", raw), tx_hash)
        self.assertEqual(self.rpc("eth_sendRawTransaction", raw), tx_hash)  # still pending
        self.rpc("evm_mine")
        number = self.rpc("eth_blockNumber")
        self.assertEqual(self.rpc("eth_sendRawTransaction", raw), tx_hash)  # mined
        self.assertEqual(self.rpc("eth_blockNumber"), number)
        self.rpc("evm_mine")
        self.assertEqual(self.rpc("eth_getTransactionReceipt", tx_hash)["blockNumber"], number)

    def test_a_wrong_nonce_is_refused_with_geths_words(self):
        nonce = int(self.rpc("eth_getTransactionCount", self.user.address, "pending"), 16)
        self.approve_raw(self.user, 1)
        self.ok(self.user, self.token.functions.approve(self.escrow.address, 1))
        stale, _ = self.approve_raw(self.user, 2, nonce=nonce)
        with self.assertRaises(RPCFailure) as caught:
            self.rpc("eth_sendRawTransaction", stale)
        self.assertEqual(caught.exception.code, -32000)
        self.assertIn("nonce too low", caught.exception.message)
        future, _ = self.approve_raw(self.user, 2, nonce=nonce + 5)
        with self.assertRaises(RPCFailure) as caught:
            self.rpc("eth_sendRawTransaction", future)
        self.assertIn("nonce too high", caught.exception.message)

    def test_a_transaction_for_another_chain_id_is_refused(self):
        other_network = Signer(self.w3, funded_keys()[2])
        other_network.chain_id = int(self.rpc("eth_chainId"), 16) + 1
        raw, _ = self.approve_raw(other_network, 1)
        with self.assertRaises(RPCFailure) as caught:
            self.rpc("eth_sendRawTransaction", raw)
        self.assertEqual(caught.exception.code, -32000)
        self.assertIn("invalid chain id", caught.exception.message)

    def test_a_revert_is_error_3_with_the_reason_and_its_data(self):
        function = self.escrow.functions.deposit(0, b"\x01" * 32)
        call = {"from": self.user.address, "to": self.escrow.address, "data": function._encode_transaction_data()}
        for method, params in (("eth_call", [call, "latest"]), ("eth_estimateGas", [call])):
            with self.assertRaises(RPCFailure) as caught:
                self.rpc(method, *params)
            self.assertEqual(caught.exception.code, 3)
            self.assertEqual(caught.exception.message, "execution reverted: escrow: zero amount")
            self.assertTrue(caught.exception.data.startswith("0x08c379a0"))

    def test_calls_need_no_sender_and_estimates_cover_the_transaction(self):
        call = {"to": self.escrow.address, "data": self.escrow.functions.daily_cap()._encode_transaction_data()}
        self.assertEqual(int(self.rpc("eth_call", call, "latest"), 16), 10**12)
        function = self.token.functions.approve(self.escrow.address, 5)
        estimate = int(self.rpc("eth_estimateGas", {"from": self.user.address, "to": self.token.address,
                                                    "data": function._encode_transaction_data()}), 16)
        receipt = self.ok(self.user, function)
        self.assertGreaterEqual(estimate, receipt["gasUsed"])

    def test_unknown_methods_and_bad_requests_are_json_rpc_errors(self):
        self.assertEqual(self.raw_rpc("eth_mining")["error"]["code"], -32601)
        self.assertEqual(self.raw_rpc("eth_getBalance", "0x12")["error"]["code"], -32602)
        self.assertIsNone(self.rpc("eth_getTransactionReceipt", "0x" + "00" * 32))
        self.assertIsNone(self.rpc("eth_getBlockByNumber", hex(10**6), False))

    def test_blocks_carry_base_fee_and_timestamps_and_fee_history_matches_them(self):
        latest = self.rpc("eth_getBlockByNumber", "latest", False)
        pending = self.rpc("eth_getBlockByNumber", "pending", False)
        self.assertEqual(int(pending["number"], 16), int(latest["number"], 16) + 1)
        self.assertGreater(int(pending["timestamp"], 16), int(latest["timestamp"], 16) - 1)
        history = self.rpc("eth_feeHistory", "0x2", "latest", [50])
        self.assertEqual(int(history["oldestBlock"], 16), int(latest["number"], 16) - 1)
        self.assertEqual(history["baseFeePerGas"][1], latest["baseFeePerGas"])
        self.assertEqual(history["baseFeePerGas"][2], pending["baseFeePerGas"])
        self.assertEqual(len(history["reward"]), 2)
        self.assertEqual(int(self.rpc("eth_gasPrice"), 16),
                         int(pending["baseFeePerGas"], 16) + int(self.rpc("eth_maxPriorityFeePerGas"), 16))

    def test_increase_time_mines_a_block_that_much_later(self):
        pending = int(self.rpc("eth_getBlockByNumber", "pending", False)["timestamp"], 16)
        answer = int(self.rpc("evm_increaseTime", hex(DAY)), 16)
        latest = int(self.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
        self.assertEqual(answer, latest)
        self.assertEqual(latest, pending + DAY)

    def test_log_indexes_count_across_the_block(self):
        self.rpc("evm_setAutomine", False)
        first, _ = self.approve_raw(self.user, 300)
        self.rpc("eth_sendRawTransaction", first)
        function = self.escrow.functions.deposit(300, b"\x41" * 32)
        raw, deposit_hash = self.user.transaction(self.escrow.address, function._encode_transaction_data(),
                                                  nonce=int(self.rpc("eth_getTransactionCount", self.user.address,
                                                                     "pending"), 16))
        self.rpc("eth_sendRawTransaction", "0x" + raw.hex())
        self.rpc("evm_mine")
        receipt = self.rpc("eth_getTransactionReceipt", "0x" + deposit_hash.hex())
        self.assertEqual(receipt["transactionIndex"], "0x1")
        # The approval in transaction 0 logged index 0; the deposit's logs continue from 1.
        self.assertEqual([log["logIndex"] for log in receipt["logs"]][0], "0x1")
        logs = self.rpc("eth_getLogs", {"fromBlock": receipt["blockNumber"], "toBlock": receipt["blockNumber"]})
        self.assertEqual([int(log["logIndex"], 16) for log in logs], list(range(len(logs))))


if __name__ == "__main__":
    unittest.main()
