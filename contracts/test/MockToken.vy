# pragma version ==0.4.3
# pragma evm-version cancun
"""
@title Test-only ERC-20 stand-in that misbehaves on request
@custom:contract-name MockToken
@license GNU Affero General Public License v3.0 only
@notice Never deployed outside scripts/evm/test_contracts.py, which
        compiles it. Enough of ERC-20 for the escrow (balances,
        `transfer`, `transferFrom` without allowances), plus the
        misbehaviours the escrow must survive:
        - `set_fails(True)`: `transfer`/`transferFrom` move nothing
          and return False instead of reverting;
        - `set_hook(a)`: after moving, call `a.on_token_call()` (a
          token with callbacks, which can re-enter the escrow);
        - `watch(escrow, id)`: during `transfer`, record what the
          escrow shows for withdrawal `id` (`paid(id)`, `paid_today()`)
          while its payout is still running.
"""


interface Hook:
    def on_token_call(): nonpayable


interface EscrowState:
    def paid(withdrawal_id: bytes32) -> bool: view
    def paid_today() -> uint256: view


balanceOf: public(HashMap[address, uint256])
fails: public(bool)
hook: public(address)

watched_escrow: public(address)
watched_id: public(bytes32)
# @dev What the escrow showed during the last `transfer`.
seen: public(bool)
seen_paid: public(bool)
seen_paid_today: public(uint256)


@external
def mint(to: address, amount: uint256):
    self.balanceOf[to] += amount


@external
def set_fails(fails: bool):
    self.fails = fails


@external
def set_hook(hook: address):
    self.hook = hook


@external
def watch(escrow: address, withdrawal_id: bytes32):
    self.watched_escrow = escrow
    self.watched_id = withdrawal_id


@external
def transfer(to: address, amount: uint256) -> bool:
    if self.fails:
        return False
    self._move(msg.sender, to, amount)
    if self.watched_escrow != empty(address):
        self.seen = True
        self.seen_paid = staticcall EscrowState(self.watched_escrow).paid(self.watched_id)
        self.seen_paid_today = staticcall EscrowState(self.watched_escrow).paid_today()
    self._call_hook()
    return True


@external
def transferFrom(owner: address, to: address, amount: uint256) -> bool:
    if self.fails:
        return False
    self._move(owner, to, amount)
    self._call_hook()
    return True


@internal
def _move(owner: address, to: address, amount: uint256):
    self.balanceOf[owner] -= amount
    self.balanceOf[to] += amount


@internal
def _call_hook():
    if self.hook != empty(address):
        extcall Hook(self.hook).on_token_call()
