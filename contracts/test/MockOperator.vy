# pragma version ==0.4.3
# pragma evm-version cancun
"""
@title Test-only operator contract that re-enters the escrow
@custom:contract-name MockOperator
@license GNU Affero General Public License v3.0 only
@notice Never deployed outside scripts/evm/test_contracts.py, which
        compiles it. Deployed as an escrow's operator next to a
        MockToken whose hook it is: `pay` calls the escrow's `payout`;
        once `arm`ed, the token's callback (`on_token_call`, during
        the escrow's `transfer` or `transferFrom`) tries one more
        `payout` from inside the running call and records whether the
        escrow let it through.
"""


interface Escrow:
    def payout(to: address, amount: uint256, withdrawal_id: bytes32): nonpayable


armed: public(bool)
escrow: public(address)
reentry_to: public(address)
reentry_amount: public(uint256)
reentry_id: public(bytes32)
# @dev Whether the callback tried the nested payout, and its outcome.
tried: public(bool)
reentry_succeeded: public(bool)


@external
def pay(escrow: address, to: address, amount: uint256, withdrawal_id: bytes32):
    extcall Escrow(escrow).payout(to, amount, withdrawal_id)


@external
def arm(escrow: address, to: address, amount: uint256, withdrawal_id: bytes32):
    self.armed = True
    self.escrow = escrow
    self.reentry_to = to
    self.reentry_amount = amount
    self.reentry_id = withdrawal_id


@external
def on_token_call():
    if not self.armed:
        return
    self.armed = False  # once: the nested payout's own token call must not recurse
    self.tried = True
    self.reentry_succeeded = raw_call(
        self.escrow,
        abi_encode(
            self.reentry_to,
            self.reentry_amount,
            self.reentry_id,
            method_id=method_id("payout(address,uint256,bytes32)"),
        ),
        revert_on_failure=False,
    )
