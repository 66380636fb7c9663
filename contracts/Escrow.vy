# pragma version ==0.4.3
# pragma evm-version cancun
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
          withdrawal id, never to the escrow itself or the token
          contract, and at most `daily_cap` token units per UTC day
          (`block.timestamp // 86400`), so a stolen operator key
          cannot drain the escrow at once.
        - The owner (a cold key, never the operator) can pause
          deposits and payouts, replace the operator and change the
          cap; a higher cap takes effect only 24 hours after it is
          set (a lower one at once). Owner and operator are always
          different addresses; the owner role moves in two steps
          (offer, then accept by the new owner).
        - Built for Cancun or later (PUSH0, MCOPY and the transient
          storage of the reentrancy lock).
"""

from ethereum.ercs import IERC20
from snekmate.auth import ownable
from snekmate.auth import ownable_2step

initializes: ownable
initializes: ownable_2step[ownable := ownable]

# @dev `owner()` comes from snekmate's `ownable`, `pending_owner()`
# (the offered new owner, or the zero address) from `ownable_2step`.
# Its `transfer_ownership` and `accept_ownership` are wrapped below
# (the operator may not become the owner, nor may the escrow or its
# token); `renounce_ownership` is deliberately not exported: an
# escrow without an owner could never be paused or get a new operator.
exports: (ownable.owner, ownable_2step.pending_owner)


# @dev Length of the payout cap's window in seconds (a UTC day).
DAY: constant(uint256) = 86400

# @dev The ERC-20 token held.
token: public(immutable(address))

# @dev The only address allowed to call `payout`.
operator: public(address)

# @dev True while deposits and payouts are refused.
paused: public(bool)

# @dev How long a raised cap waits before it applies (24 hours), so
# that a leaked owner key cannot raise the cap and drain the escrow at
# once: the owner has a day to notice, pause and lower it again.
CAP_RAISE_DELAY: constant(uint256) = 86400

# @dev The cap in force (read it through `daily_cap()`, which also
# applies a raise whose time has come).
_daily_cap: uint256

# @dev A raised cap waiting to apply (0 with `next_daily_cap_at` 0:
# none), and the timestamp from which it applies.
next_daily_cap: public(uint256)
next_daily_cap_at: public(uint256)

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


# @dev The owner changed the daily payout cap (a lower or equal cap,
# in force at once; also logged by the constructor).
event DailyCapChanged:
    previous_cap: uint256
    new_cap: uint256


# @dev The owner raised the daily payout cap: `new_cap` applies from
# timestamp `effective_at` (no further event is logged then).
event DailyCapRaiseScheduled:
    current_cap: uint256
    new_cap: uint256
    effective_at: uint256


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
    @param token_ The ERC-20 token the escrow holds (a contract).
    @param operator_ The payout key; neither empty nor the deployer,
           the token or the escrow.
    @param daily_cap_ The most the operator may pay out per UTC day,
           in force at once.
    """
    assert token_ != empty(address), "escrow: token is the zero address"
    assert token_.is_contract, "escrow: token has no code"
    assert operator_ != empty(address), "escrow: operator is the zero address"
    assert operator_ != msg.sender, "escrow: operator is the owner"
    assert operator_ != token_ and operator_ != self, "escrow: operator is the escrow or its token"
    ownable.__init__()
    ownable_2step.__init__()
    token = token_
    self.operator = operator_
    self._daily_cap = daily_cap_
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
    @param to The recipient; not the zero address, the escrow itself
           (the tokens would stay here but leave the books) or the
           token contract (they would be lost for good).
    @param amount Token units, more than 0.
    @param withdrawal_id The issuer's 32-byte withdrawal id.
    """
    assert msg.sender == self.operator, "escrow: caller is not the operator"
    assert not self.paused, "escrow: paused"
    assert not self.paid[withdrawal_id], "escrow: withdrawal already paid"
    assert to != empty(address), "escrow: payout to the zero address"
    assert to != self, "escrow: payout to the escrow"
    assert to != token, "escrow: payout to the token contract"
    assert amount > 0, "escrow: zero amount"
    day: uint256 = block.timestamp // DAY
    spent: uint256 = self._spent_in(day)
    cap: uint256 = self._cap_now()
    # Written so that neither a lowered cap (below what was already
    # paid today) nor a huge amount can overflow into a wrong answer.
    assert spent <= cap and amount <= cap - spent, "escrow: daily cap exceeded"
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
    @param new_operator Neither empty nor the owner, the token or the
           escrow (neither could sign a payout).
    """
    ownable._check_owner()
    assert new_operator != empty(address), "escrow: operator is the zero address"
    assert new_operator != ownable.owner, "escrow: operator is the owner"
    assert new_operator != token and new_operator != self, "escrow: operator is the escrow or its token"
    log OperatorChanged(previous_operator=self.operator, new_operator=new_operator)
    self.operator = new_operator


@external
def set_daily_cap(new_cap: uint256):
    """
    @dev Owner only: change the most the operator may pay out per UTC
         day. A cap no higher than the one in force applies at once
         (and cancels a raise still waiting); a higher one applies
         `CAP_RAISE_DELAY` seconds from now (`next_daily_cap`,
         `next_daily_cap_at`), replacing a raise still waiting. What
         was already paid today still counts.
    @param new_cap Token units per day.
    """
    ownable._check_owner()
    current: uint256 = self._cap_now()
    self._daily_cap = current
    self.next_daily_cap = 0
    self.next_daily_cap_at = 0
    if new_cap <= current:
        log DailyCapChanged(previous_cap=current, new_cap=new_cap)
        self._daily_cap = new_cap
    else:
        self.next_daily_cap = new_cap
        self.next_daily_cap_at = block.timestamp + CAP_RAISE_DELAY
        log DailyCapRaiseScheduled(
            current_cap=current, new_cap=new_cap, effective_at=self.next_daily_cap_at
        )


@external
def transfer_ownership(new_owner: address):
    """
    @dev Owner only: offer the owner role to `new_owner`, who takes it
         with `accept_ownership` (until then the current owner stays
         in charge). `new_owner` is not the operator (the roles stay
         apart), the escrow or its token (neither could accept); the
         zero address withdraws a pending offer. A new offer replaces
         the pending one.
    @param new_owner The offered new owner.
    """
    ownable._check_owner()
    assert new_owner != self.operator, "escrow: new owner is the operator"
    assert new_owner != self and new_owner != token, "escrow: new owner is the escrow or its token"
    ownable_2step.pending_owner = new_owner
    log ownable_2step.OwnershipTransferStarted(previous_owner=ownable.owner, new_owner=new_owner)


@external
def accept_ownership():
    """
    @dev The offered new owner takes the owner role, unless it has
         become the operator since the offer (the roles stay apart).
    """
    assert ownable_2step.pending_owner == msg.sender, "ownable_2step: caller is not the new owner"
    assert msg.sender != self.operator, "escrow: new owner is the operator"
    ownable_2step._transfer_ownership(msg.sender)


@external
@view
def daily_cap() -> uint256:
    """
    @dev The most the operator may pay out per UTC day, now (a raise
         counts from its `next_daily_cap_at` on).
    """
    return self._cap_now()


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
    cap: uint256 = self._cap_now()
    if spent >= cap:
        return 0
    return cap - spent


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


@internal
@view
def _cap_now() -> uint256:
    """
    @dev The cap in force at this block: the waiting raise once its
         time has come, else the stored cap.
    """
    if self.next_daily_cap_at != 0 and block.timestamp >= self.next_daily_cap_at:
        return self.next_daily_cap
    return self._daily_cap
