"""gameledger's HTTP API, web pages and command line: the composition root."""
