"""Table and player ids, derived from the command's request id and its caller.

A retried CreateTable or JoinTable (same ``x-request-id``) may reach another lobby replica; it
must name the same table and the same player, so that the referee recognises the retry and
answers with its first answer instead of making a second table or a second seat. So the ids
are keyed hashes of the request id, under the token secret every replica shares, and of the
caller (``callers.caller``):

    table_id  = hex(HMAC-SHA256(secret, "table-id\\0" caller "\\0" request_id))[:16]
    player_id = hex(HMAC-SHA256(secret, "player-id\\0" table_id "\\0" caller "\\0" request_id))[:16]

The caller is what makes a request id no bearer secret: the same id from another caller names
another table and another player, so the referee has no answer for it and judges it as a new
command; it never hands out the first caller's seat, token or invite code.

A rematch (``Rematch``) is named by the finished table alone, so that every player who asks,
on any replica, at the same moment or not, names the same one, and its invite code is known to
the lobby without being stored (and never shown: only ``Rematch`` seats a player there):

    rematch_table = hex(HMAC-SHA256(secret, "rematch-table\0" table_id))[:16]
    rematch_code  = 12 letters of the invite alphabet from HMAC-SHA256(secret, "rematch-code\0"
                    rematch_table)

A request without ``x-request-id`` gets a fresh random one from the lobby (uuid4), so its ids
are as random as before. Without the secret nobody can tell an id from its request id or the
other way round.
"""

from __future__ import annotations

import hashlib
import hmac

ID_HEX_DIGITS = 16  # 64 bits, like the random ids before; a valid subject token
TABLE_LABEL = b"table-id\0"
PLAYER_LABEL = b"player-id\0"
REMATCH_TABLE_LABEL = b"rematch-table\0"
REMATCH_CODE_LABEL = b"rematch-code\0"


class Ids:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _derive(self, message: bytes) -> str:
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:ID_HEX_DIGITS]

    def table(self, request_id: str, caller: str) -> str:
        """The table a CreateTable with this request id, from this caller, makes."""
        return self._derive(TABLE_LABEL + caller.encode() + b"\0" + request_id.encode())

    def player(self, table_id: str, request_id: str, caller: str) -> str:
        """The player a CreateTable or JoinTable with this request id, from this caller, seats
        at ``table_id``."""
        return self._derive(
            PLAYER_LABEL + table_id.encode() + b"\0" + caller.encode() + b"\0" + request_id.encode()
        )

    def rematch_table(self, table_id: str) -> str:
        """The table a rematch of ``table_id`` is played at (the same for every player)."""
        return self._derive(REMATCH_TABLE_LABEL + table_id.encode())

    def rematch_code(self, rematch_table_id: str, alphabet: str, length: int) -> str:
        """The invite code of the rematch table ``rematch_table_id``: ``length`` characters of
        ``alphabet``, from a keyed hash (a byte per character: the small bias of ``% 31`` is
        immaterial, the code is never shown and only the lobby uses it)."""
        digest = hmac.new(
            self._secret, REMATCH_CODE_LABEL + rematch_table_id.encode(), hashlib.sha256
        ).digest()
        return "".join(alphabet[b % len(alphabet)] for b in digest[:length])
