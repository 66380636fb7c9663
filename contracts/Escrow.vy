# pragma version ==0.4.3
"""
@title Offline Wallet escrow
@custom:contract-name Escrow
@license GNU Affero General Public License v3.0 only
@notice Holds the ERC-20 tokens that back the wallet's accounts and
        offline notes.
        - Anyone deposits with `deposit(amount, account_ref)` after
          approving the escrow on the token; the `Deposit` event
          tells the issuer's server which account to credit.
        - Only the operator (the server's hot key) pays out, once per
          withdrawal id, and at most `daily_cap` token units per UTC
          day (`block.timestamp // 86400`), so a stolen operator key
          cannot drain the escrow at once.
        - The owner (a cold key, never the operator) can pause
          deposits and payouts, replace the operator and change the
          cap. Owner and operator are always different addresses.
"""

from ethereum.ercs import IERC20
from snekmate.auth import ownable

initializes: ownable

# @dev `owner()` comes from snekmate's `ownable`. Its
# `transfer_ownership` is wrapped below (the operator may not become
# the owner); `renounce_ownership` is deliberately not exported: an
# escrow without an owner could never be paused or get a new operator.
exports: ownable.owner


# @dev Length of the payout cap's window in seconds (a UTC day).
DAY: constant(uint256) = 86400

# @dev The ERC-20 token held.
token: public(immutable(address))

# @dev The only address allowed to call `payout`.
operator: public(address)

# @dev True while deposits and payouts are refused.
paused: public(bool)

# @dev The most the operator may pay out within one window.
daily_cap: public(uint256)

# @dev True for every withdrawal id already paid out.
paid: public(HashMap[bytes32, bool])

# @dev The window (`block.timestamp // DAY`) `_paid_in_day` counts for.
cap_day: public(uint256)

# @dev Paid out during window `cap_day`; read it through
# `paid_today()`, which is 0 once a new window has begun.
_paid_in_day: uint256


# @dev A deposit of `amount` by `sender` for the account whose
# reference is `account_ref`.
event Deposit:
    account_ref: indexed(bytes32)
    sender: indexed(address)
    amount: uint256


# @dev A payout of `amount` to `to` for withdrawal `withdrawal_id`.
event Payout:
    withdrawal_id: indexed(bytes32)
    to: indexed(address)
    amount: uint256


# @dev The owner replaced the operator.
event OperatorChanged:
    previous_operator: indexed(address)
    new_operator: indexed(address)


# @dev The owner changed the daily payout cap.
event DailyCapChanged:
    previous_cap: uint256
    new_cap: uint256


# @dev The owner paused deposits and payouts.
event Paused:
    account: address


# @dev The owner lifted the pause.
event Unpaused:
    account: address


@deploy
@payable
def __init__(token_: address, operator_: address, daily_cap_: uint256):
    """
    @dev The deployer becomes the owner. `payable` only to leave the
         msg.value check out of the creation code.
    @param token_ The ERC-20 token the escrow holds.
    @param operator_ The payout key; neither empty nor the deployer.
    @param daily_cap_ The most the operator may pay out per UTC day.
    """
    assert token_ != empty(address), "escrow: token is the zero address"
    assert operator_ != empty(address), "escrow: operator is the zero address"
    assert operator_ != msg.sender, "escrow: operator is the owner"
    ownable.__init__()
    token = token_
    self.operator = operator_
    self.daily_cap = daily_cap_
    log OperatorChanged(previous_operator=empty(address), new_operator=operator_)
    log DailyCapChanged(previous_cap=0, new_cap=daily_cap_)


@external
@nonreentrant
def deposit(amount: uint256, account_ref: bytes32):
    """
    @dev Moves `amount` tokens from the caller into the escrow (the
         caller must have approved the escrow on the token first) and
         logs `Deposit`, which credits the account `account_ref`.
    @param amount Token units (minor currency units), more than 0.
    @param account_ref The 32-byte reference of the account to credit,
           as the issuer's deposit instructions show it.
    """
    assert not self.paused, "escrow: paused"
    assert amount > 0, "escrow: zero amount"
    log Deposit(account_ref=account_ref, sender=msg.sender, amount=amount)
    # A token that returns nothing counts as success; one that returns
    # False (instead of reverting) is refused here.
    assert extcall IERC20(token).transferFrom(
        msg.sender, self, amount, default_return_value=True
    ), "escrow: token transferFrom failed"


@external
@nonreentrant
def payout(to: address, amount: uint256, withdrawal_id: bytes32):
    """
    @dev Pays `amount` tokens to `to` for withdrawal `withdrawal_id`:
         only the operator, not while paused, each id at most once,
         and within what is left of the day's cap.
    @param to The recipient; not the zero address.
    @param amount Token units, more than 0.
    @param withdrawal_id The issuer's 32-byte withdrawal id.
    """
    assert msg.sender == self.operator, "escrow: caller is not the operator"
    assert not self.paused, "escrow: paused"
    assert not self.paid[withdrawal_id], "escrow: withdrawal already paid"
    assert to != empty(address), "escrow: payout to the zero address"
    assert amount > 0, "escrow: zero amount"
    day: uint256 = block.timestamp // DAY
    spent: uint256 = self._spent_in(day)
    # Written so that neither a lowered cap (below what was already
    # paid today) nor a huge amount can overflow into a wrong answer.
    assert spent <= self.daily_cap and amount <= self.daily_cap - spent, "escrow: daily cap exceeded"
    # Effects before the token call (checks-effects-interactions).
    self.paid[withdrawal_id] = True
    self.cap_day = day
    self._paid_in_day = spent + amount
    log Payout(withdrawal_id=withdrawal_id, to=to, amount=amount)
    assert extcall IERC20(token).transfer(
        to, amount, default_return_value=True
    ), "escrow: token transfer failed"


@external
def pause():
    """
    @dev Owner only: refuse deposits and payouts until `unpause`.
    """
    ownable._check_owner()
    assert not self.paused, "escrow: already paused"
    self.paused = True
    log Paused(account=msg.sender)


@external
def unpause():
    """
    @dev Owner only: accept deposits and payouts again.
    """
    ownable._check_owner()
    assert self.paused, "escrow: not paused"
    self.paused = False
    log Unpaused(account=msg.sender)


@external
def set_operator(new_operator: address):
    """
    @dev Owner only: replace the payout key (e.g. after a leak).
    @param new_operator Neither empty nor the owner.
    """
    ownable._check_owner()
    assert new_operator != empty(address), "escrow: operator is the zero address"
    assert new_operator != ownable.owner, "escrow: operator is the owner"
    log OperatorChanged(previous_operator=self.operator, new_operator=new_operator)
    self.operator = new_operator


@external
def set_daily_cap(new_cap: uint256):
    """
    @dev Owner only: change the most the operator may pay out per UTC
         day. What was already paid today still counts.
    @param new_cap Token units per day.
    """
    ownable._check_owner()
    log DailyCapChanged(previous_cap=self.daily_cap, new_cap=new_cap)
    self.daily_cap = new_cap


@external
def transfer_ownership(new_owner: address):
    """
    @dev Owner only: hand the owner role to `new_owner`, which is
         neither empty nor the operator (the roles stay apart).
    @param new_owner The new owner.
    """
    ownable._check_owner()
    assert new_owner != empty(address), "ownable: new owner is the zero address"
    assert new_owner != self.operator, "escrow: new owner is the operator"
    ownable._transfer_ownership(new_owner)


@external
@view
def paid_today() -> uint256:
    """
    @dev What the operator has paid out in the current UTC day.
    """
    return self._spent_in(block.timestamp // DAY)


@external
@view
def remaining_today() -> uint256:
    """
    @dev What the operator may still pay out in the current UTC day.
    """
    spent: uint256 = self._spent_in(block.timestamp // DAY)
    if spent >= self.daily_cap:
        return 0
    return self.daily_cap - spent


@internal
@view
def _spent_in(day: uint256) -> uint256:
    """
    @dev Paid out in window `day`: the stored sum if it is for that
         window, else 0 (a new day starts from nothing).
    """
    if day == self.cap_day:
        return self._paid_in_day
    return 0
