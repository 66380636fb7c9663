# pragma version ==0.4.3
# pragma evm-version cancun
"""
@title Test-only token whose transfer functions return nothing
@custom:contract-name NoReturnToken
@license GNU Affero General Public License v3.0 only
@notice Never deployed outside scripts/evm/test_contracts.py, which
        compiles it. Like USDT on Ethereum: `transfer` and
        `transferFrom` move the tokens (or revert) but return no data,
        which the escrow must count as success.
"""

balanceOf: public(HashMap[address, uint256])


@external
def mint(to: address, amount: uint256):
    self.balanceOf[to] += amount


@external
def transfer(to: address, amount: uint256):
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[to] += amount


@external
def transferFrom(owner: address, to: address, amount: uint256):
    self.balanceOf[owner] -= amount
    self.balanceOf[to] += amount
