"""Cotton Trade 1800-1860 (rulebook 004; spec shared/rules/cotton-trade.md)."""
