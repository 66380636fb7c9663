# pragma version ==0.4.3
# pragma evm-version cancun
"""
@title Offline Wallet test token
@custom:contract-name Token
@license GNU Affero General Public License v3.0 only
@notice A plain ERC-20 (snekmate's audited `erc20` with its
        `ownable` owner) whose decimals are a constructor
        parameter, so that one token unit is exactly one
        minor unit of the wallet's currency (EUR: decimals 2,
        one unit = one cent; nothing is ever scaled).
        The deployer is the owner and the only minter at
        first; the owner can mint (tests and the demo) and
        add or remove minters. EIP-2612 `permit` comes with
        snekmate's module; the signing domain is the token's
        name, version "1".
"""

from snekmate.auth import ownable
from snekmate.tokens import erc20

initializes: ownable
initializes: erc20[ownable := ownable]

# @dev The whole ERC-20 surface (transfer, approve, transferFrom,
# balanceOf, allowance, totalSupply, name, symbol, decimals, mint,
# burn, burn_from, set_minter, is_minter, permit, nonces,
# DOMAIN_SEPARATOR, eip712Domain, owner, transfer_ownership,
# renounce_ownership).
exports: erc20.__interface__


@deploy
@payable
def __init__(name_: String[25], symbol_: String[5], decimals_: uint8):
    """
    @dev `payable` only to leave the msg.value check out of the
         creation code, as snekmate's modules do.
    @param name_ The token's name, at most 25 characters; also the
           EIP-712 signing domain's name.
    @param symbol_ The token's symbol, at most 5 characters.
    @param decimals_ The currency's minor-unit digits (2 for EUR).
    """
    ownable.__init__()
    erc20.__init__(name_, symbol_, decimals_, name_, "1")
