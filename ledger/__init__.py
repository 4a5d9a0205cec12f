"""gameledger's write side: the titles' pure rules engines and the event-sourced ledger."""
