"""Read models fed by the ledger's notification log (may import ledger, never api)."""
