"""The ledger as a whole: signed digests of every game's head, and the key that signs them.

Published so that anyone can check a record against them: every route here is read-only and
answers without a token (rate-limited per client address, ``GAMELEDGER_PUBLIC_READ_RATE``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import ServicesDep
from api.schemas import ErrorOut

router = APIRouter(prefix="/ledger", tags=["audit"])
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (404, 429)}


@router.get("/digest", responses=ERRORS)
def digest(
    services: ServicesDep,
    game: Annotated[str | None, Query(description="Add the inclusion proof of this game's head")] = None,
) -> dict[str, Any]:
    """The Ed25519-signed Merkle root over the heads (latest event hashes) of all games,
    issued now if the ledger moved since the last one. With ``game``, the proof that the
    game's head is a leaf: save this answer beside the game's export for ``gameledger verify``."""
    out = services.digest(game)
    if game is not None and out.get("proof") is None:
        from ledger.errors import NotFoundError

        raise NotFoundError(f"Game {game} is not in the digest.", code="ledger/not_in_digest")
    return out


@router.get("/digests", responses=ERRORS)
def digests(services: ServicesDep, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict[str, Any]:
    """The digests published so far, newest first."""
    return {"digests": services.digests.listing(limit)}


@router.get("/public-key", responses=ERRORS)
def public_key(services: ServicesDep) -> dict[str, Any]:
    """The key that signs the digests: pin it to check digests offline."""
    signer = services.signer
    return {"algorithm": "Ed25519", "public_key": signer.public_key, "key_id": signer.key_id}
